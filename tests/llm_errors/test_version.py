"""``llm_errors.__version__``: the installed distribution's, or ``0+unknown`` when not installed."""

import os
import site
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import llm_errors
from llm_errors import _version

SRC = Path(__file__).parents[2] / "src"
OURS = {"llm_errors", "llm_retry", "adapter"}  # a wheel install's packages, left out too


def test_version_is_the_installed_distribution_s():
    """``__version__`` is the metadata's version, the one ``pyproject.toml`` declares."""
    assert llm_errors.__version__ == metadata.version("llm-resilience")
    assert llm_errors.__version__ != _version.UNKNOWN_VERSION


def test_not_installed_is_unknown(monkeypatch):
    """Without the distribution's metadata the version is the PEP 440 ``0+unknown``."""

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    _version.distribution_version.cache_clear()  # read once per process, when first asked
    try:
        assert _version.distribution_version() == "0+unknown"
    finally:
        _version.distribution_version.cache_clear()


@pytest.mark.integration
def test_the_version_is_read_only_when_asked():
    """Importing ``llm_errors``, ``llm_retry`` or the CLI does not import ``importlib.metadata``.

    (A third of ``import llm_errors``; pydantic, which the adapter uses, imports it anyway.)
    """
    code = (
        "import sys, llm_errors, llm_retry, llm_errors.logs._cli; "
        "assert 'importlib.metadata' not in sys.modules; "
        "import adapter; "
        "assert llm_errors.__version__ == llm_retry.__version__ == adapter.__version__; "
        "print(llm_errors.__version__)"
    )
    result = subprocess.run(  # noqa: S603 -- our own code, fixed arguments
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == metadata.version("llm-resilience")


@pytest.mark.integration
def test_source_tree_never_installed(tmp_path):
    """Imported from ``src/`` with the dependencies but no ``llm-resilience`` metadata."""
    packages = tmp_path / "site"
    packages.mkdir()
    for entry in Path(site.getsitepackages()[0]).iterdir():
        if entry.name not in OURS and not entry.name.startswith(("llm_resilience", "_editable")):
            (packages / entry.name).symlink_to(entry)
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{packages}"}
    code = "import llm_errors as e; print(e.__version__, e.__file__)"
    result = subprocess.run(  # noqa: S603 -- our own code, fixed arguments
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=60,
    )
    version, where = result.stdout.split()
    assert version == "0+unknown"
    assert Path(where).is_relative_to(SRC)
