"""Build step: compile the optional log-prefix reader (``src/native``) into the wheel.

``llm_errors.logs._prefix`` uses the compiled ``_llm_errors_native`` module where it
is installed and its own pure functions (the definition) otherwise, so a failed or
skipped compile only costs speed: it is reported and the wheel is built without it.
Set ``LLM_RESILIENCE_PURE=1`` to skip it. The compiler and its flags are the ones this
Python was built with (``sysconfig``'s ``LDSHARED``), as setuptools would use them.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = Path("src/native/_llm_errors_native.c")
#: Seconds the compiler may take (it takes under two).
COMPILE_LIMIT = 120


class NativeBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the compiled module at the wheel's root (editable installs included)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Compile the module into the wheel (``version``: ``standard`` or ``editable``)."""
        if os.environ.get("LLM_RESILIENCE_PURE"):
            self.app.display_info("llm-resilience: LLM_RESILIENCE_PURE is set: no native module")
            return
        built = self._compile()
        if built is None:
            return
        name = built.name
        key = "force_include_editable" if version == "editable" else "force_include"
        build_data[key][str(built)] = name
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def _compile(self) -> Path | None:
        linker = sysconfig.get_config_var("LDSHARED")
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        if not linker or not suffix:
            self.app.display_warning("llm-resilience: no C toolchain known to this Python")
            return None
        root = Path(self.root)
        target = root / "build" / "native" / f"_llm_errors_native{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        include = sysconfig.get_paths()["include"]
        command = [*shlex.split(linker), "-O2", "-fPIC", f"-I{include}"]
        command += [str(root / SOURCE), "-o", str(target)]
        try:
            subprocess.run(  # noqa: S603 - this Python's own compiler, fixed arguments
                command, check=True, capture_output=True, text=True, timeout=COMPILE_LIMIT
            )
        except (OSError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", None) or str(exc)
            self.app.display_warning(
                f"llm-resilience: the native module was not compiled (the pure one is used): "
                f"{detail.strip().splitlines()[-1:] if detail else exc}"
            )
            return None
        return target
