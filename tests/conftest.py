"""Shared test configuration: Hypothesis profiles, pytester, shared tests, OpenTelemetry.

Hypothesis runs without deadlines (CI's profile has more examples); pytester runs users'
suites against our pytest plugins; a folder's conftest may write tests once for every
module below it (:class:`SharedTestsSpec`); ``otel_sdk`` gives a test OpenTelemetry
providers that keep what they record in memory (llm_retry's hook, the adapter's spans);
``without_extras`` and ``opentelemetry_missing`` make the optional extras unimportable,
in a child interpreter and in this process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

# pytester runs a user's suite against our pytest plugins (tests/adapter/testing).
pytest_plugins = ["pytester"]

settings.register_profile("default", deadline=None)
settings.register_profile(
    "ci", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


class SharedTestsSpec:
    """The hook a folder's ``conftest.py`` implements to lend its tests to its modules."""

    @pytest.hookspec
    def pytest_shared_tests(self, module: ModuleType) -> list[Callable[..., object]]:
        """The test functions to collect in ``module`` as if it defined them itself.

        Called with each test module below the conftest; a test reads the module's
        data through ``request.module``. A name the module defines itself wins.
        """
        raise NotImplementedError


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Declare ``pytest_shared_tests`` (tests/llm_errors/sdks, tests/llm_retry/recipes)."""
    pluginmanager.add_hookspecs(SharedTestsSpec)


class ModuleWithSharedTests(pytest.Module):
    """A test module, with the shared tests of the conftests above it added to it."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        """Add the shared tests to the module's namespace, then collect as usual."""
        namespace = vars(self.obj)
        for tests in self.ihook.pytest_shared_tests(module=self.obj):
            for test in tests:
                namespace.setdefault(test.__name__, test)
        return list(super().collect())


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module:
    """Collect every test module as a :class:`ModuleWithSharedTests`."""
    return ModuleWithSharedTests.from_parent(parent, path=module_path)


@pytest.fixture(scope="session", autouse=True)
def _block_filter_cache(tmp_path_factory: pytest.TempPathFactory) -> object:
    """Keep the block filter's compiled database in a session folder, not the user's cache.

    The CLI runs of the suite (in-process and as subprocesses, which inherit it) then
    compile it once and load it after (``llm_errors.logs._stored``).
    """
    with pytest.MonkeyPatch.context() as patch:
        if "LLM_ERRORS_CACHE_DIR" not in os.environ:
            patch.setenv("LLM_ERRORS_CACHE_DIR", str(tmp_path_factory.mktemp("llm-errors-cache")))
        yield


@dataclass(frozen=True)
class InMemoryOtel:
    """One test's OpenTelemetry SDK providers, with what they record kept in memory."""

    tracer_provider: TracerProvider
    exporter: InMemorySpanExporter
    meter_provider: MeterProvider
    reader: InMemoryMetricReader

    def points(self, name: str) -> list[Any]:
        """The data points of metric ``name`` (empty when it was never recorded)."""
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        found.extend(metric.data.data_points)
        return found


@pytest.fixture
def otel_sdk() -> Iterator[InMemoryOtel]:
    """Providers of this test's own (the global ones can be set only once), shut down after.

    The SDK is imported here, not above, so that runs which never use it don't load it.
    """
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    yield InMemoryOtel(tracer_provider, exporter, meter_provider, reader)
    tracer_provider.shutdown()
    meter_provider.shutdown()


#: The optional extras that ``without_extras`` makes unimportable.
EXTRAS = ("opentelemetry", "prometheus_client", "structlog")


@pytest.fixture
def without_extras() -> str:
    """Python source to prefix to a child interpreter's script: the extras cannot be imported.

    Its ``BLOCKED`` names them, for the script's own checks.
    """
    return f"""
import sys

BLOCKED = {EXTRAS!r}


class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is blocked for this test")
        return None


sys.meta_path.insert(0, Refuse())
"""


class _RefuseOpenTelemetry:
    """A meta-path finder for which ``opentelemetry`` is not installed."""

    def find_spec(self, name: str, _path: object = None, _target: object = None) -> None:
        """Refuse ``opentelemetry`` and its modules; leave the rest to the next finders."""
        if name.partition(".")[0] == "opentelemetry":
            raise ImportError(f"{name} is blocked for this test")


@pytest.fixture
def opentelemetry_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process, ``opentelemetry.trace`` cannot be found (restored afterwards)."""
    monkeypatch.setattr(sys, "meta_path", [_RefuseOpenTelemetry(), *sys.meta_path])
    monkeypatch.delitem(sys.modules, "opentelemetry.trace")
