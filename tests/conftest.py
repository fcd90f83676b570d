"""Shared test configuration: tiers, tables, Hypothesis, pytester, shared tests, OpenTelemetry.

The tiers: a test that uses real parts (a socket it binds or connects, a subprocess, a
forked or spawned process) must be marked ``integration``; every run checks it
(:class:`RealParts`), so the unit tier that CI runs on every Python is what it says.
``table`` checks every row of a data table in one test and names every failing row.
Hypothesis runs without deadlines (CI's profile has more examples); pytester runs users'
suites against our pytest plugins; a folder's conftest may write tests once for every
module below it (:class:`SharedTestsSpec`); ``otel_sdk`` gives a test OpenTelemetry
providers that keep what they record in memory (llm_retry's hook, the adapter's spans);
``without_extras`` and ``opentelemetry_missing`` make the optional extras unimportable,
in a child interpreter and in this process.
"""

from __future__ import annotations

import os
import resource as _resource
import sys
from collections.abc import Callable, Iterable, Iterator
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


class RealParts:
    """What a test used of the real world, seen through Python's audit events.

    Sockets that bind or connect, subprocesses and forks raise audit events; a process
    started by ``multiprocessing``'s spawn raises none, so a child process reaped while
    the test ran (``RUSAGE_CHILDREN`` grew) counts too. Socket pairs (asyncio's wake-up
    pipe) neither bind nor connect and do not count.
    """

    EVENTS = frozenset(
        {
            "socket.bind",
            "socket.connect",
            "subprocess.Popen",
            "os.fork",
            "os.forkpty",
            "os.posix_spawn",
            "os.system",
            "os.exec",
        }
    )

    def __init__(self) -> None:
        self.watching = False
        self.seen: set[str] = set()
        self._children = 0.0

    def audit(self, event: str, _args: tuple[object, ...]) -> None:
        """The audit hook: note a real part while a test's setup or call runs."""
        if self.watching and event in self.EVENTS:
            self.seen.add(event)

    def start(self) -> None:
        """Watch from now on (the start of a test's setup)."""
        self.seen.clear()
        self._children = _children_cpu()
        self.watching = True

    def stop(self) -> set[str]:
        """Stop watching; the real parts seen since :meth:`start`."""
        self.watching = False
        if _children_cpu() > self._children:
            self.seen.add("a child process")
        return set(self.seen)


def _children_cpu() -> float:
    usage = _resource.getrusage(_resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


REAL_PARTS = RealParts()
sys.addaudithook(REAL_PARTS.audit)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Watch for real parts from the test's setup on (its fixtures may start servers)."""
    REAL_PARTS.start()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail a test that used real parts without the ``integration`` mark, naming them.

    A test that failed on its own keeps its own failure.
    """
    try:
        result = yield
    finally:
        seen = REAL_PARTS.stop()
    if seen and item.get_closest_marker("integration") is None:
        pytest.fail(
            f"this test used real parts ({', '.join(sorted(seen))}) but is not marked "
            "integration: mark it (pytest.mark.integration) so the unit tier stays unit",
            pytrace=False,
        )
    return result


class Table:
    """Checks each row of a data table in one test, and names every row that fails."""

    #: A failing row's message is cut to this many characters in the report.
    MESSAGE_LIMIT = 400

    @classmethod
    def check(
        cls, rows: Iterable[tuple[str, tuple[Any, ...]]], check: Callable[..., object]
    ) -> None:
        """Call ``check(*row)`` for every ``(row id, row)``; fail once, listing the failures.

        A row fails when its check raises (an ``assert`` or any error), so one bad row
        never hides the others and the report names each by its id.
        """
        failed: list[str] = []
        count = 0
        for row_id, row in rows:
            count += 1
            try:
                check(*row)
            except Exception as exc:  # every failure is reported by its row
                text = f"{type(exc).__name__}: {exc}".replace("\n", " ")
                failed.append(f"  {row_id}: {text[: cls.MESSAGE_LIMIT]}")
        assert count, "the table has no rows"
        if failed:
            pytest.fail(
                f"{len(failed)} of {count} rows failed:\n" + "\n".join(failed), pytrace=False
            )


@pytest.fixture
def table() -> type[Table]:
    """:meth:`Table.check`: one test over a whole data table that names each failing row."""
    return Table


settings.register_profile("default", deadline=None)
settings.register_profile(
    "ci", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
# CI's coverage run measures which lines run; the plain runs search for failing examples.
settings.register_profile(
    "coverage", deadline=None, max_examples=20, suppress_health_check=[HealthCheck.too_slow]
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
