"""Fixtures for llm_retry: a fake clock, scripted backends, the plugin's fixture, Redis."""

import os
import shutil
import socket
import subprocess
import time
import uuid

import pytest
import redis

import llm_retry._coordination
from llm_retry import RetryPolicy

# The fixture users get from the ``pytest11`` entry point; imported here so this
# suite gets it even before the plugin is registered.
from llm_retry._pytest_plugin import llm_retry_testing

__all__ = ["llm_retry_testing"]


class FakeClock:
    """A monotonic clock that only moves when something sleeps or work is simulated."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    async def async_sleep(self, seconds):
        self.sleep(seconds)


class Script:
    """A fake backend: raises or returns the scripted outcomes in order, counting calls.

    An exception *class* in the script is instantiated fresh for each call, so notes
    never pile up on a shared instance. The last outcome repeats.
    """

    def __init__(self, *outcomes, clock=None, latency=0.0):
        self.outcomes = list(outcomes)
        self.calls = 0
        self.clock = clock
        self.latency = latency

    def next_outcome(self):
        outcome = self.outcomes[min(self.calls, len(self.outcomes) - 1)]
        self.calls += 1
        if self.clock is not None:
            self.clock.advance(self.latency)
        if isinstance(outcome, type) and issubclass(outcome, BaseException):
            outcome = outcome("scripted failure")
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def __call__(self, *_args, **_kwargs):
        return self.next_outcome()

    async def acall(self, *_args, **_kwargs):
        return self.next_outcome()


@pytest.fixture
def clock():
    """A fresh fake clock."""
    return FakeClock()


@pytest.fixture
def make_policy(clock):
    """Build policies that sleep on the fake clock, without jitter or logging."""

    def build(**settings):
        defaults = {
            "clock": clock,
            "sleep": clock.sleep,
            "async_sleep": clock.async_sleep,
            "jitter": False,
            "on_retry": None,
        }
        return RetryPolicy(**(defaults | settings))

    return build


@pytest.fixture
def script(clock):
    """Build scripted backends whose attempts may take fake time (``latency``)."""

    def build(*outcomes, latency=0.0):
        return Script(*outcomes, clock=clock, latency=latency)

    return build


@pytest.fixture(autouse=True)
def fresh_fail_open_reports(monkeypatch):
    """Each test starts with no backend failure reported yet (they are once per process)."""
    monkeypatch.setattr(llm_retry._coordination, "_reported", set())


# --- a real redis-server, started by the suite ------------------------------------------

#: Set to 1 (CI does) to make a missing redis-server binary a failure instead of a skip.
REQUIRE_REDIS = "LLM_RESILIENCE_REQUIRE_REDIS"
_READY_TIMEOUT = 10.0


class RedisServer:
    """A redis-server process on a free loopback port, with its data in a temp dir."""

    def __init__(self, directory, *, port=None, flags=()):
        self.directory = directory
        self.port = port or _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.flags = list(flags)
        self.process = None

    def start(self):
        self.process = subprocess.Popen(  # noqa: S603 - the redis-server binary, our flags
            [
                shutil.which("redis-server"),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--save",
                "",
                "--appendonly",
                "no",
                *self.flags,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_timeout=1)
        deadline = time.monotonic() + _READY_TIMEOUT
        try:
            while not self._answers(client):
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.02)
        finally:
            client.close()
        return self

    @staticmethod
    def _answers(client):
        try:
            return client.ping()
        except redis.ConnectionError:
            return False

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def client(self):
        return redis.Redis.from_url(self.url, socket_timeout=5)


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _free_cluster_port(tries=50):
    """A free port whose cluster bus port (``port + 10000``) is free too."""
    for _ in range(tries):
        port = _free_port()
        if port + 10000 > 65535:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free port pair for a cluster node in {tries} tries")


#: The slots of each master of the test cluster (16384 in all), as CLUSTER ADDSLOTSRANGE.
CLUSTER_SLOTS = ((0, 5460), (5461, 10922), (10923, 16383))
_CLUSTER_READY_TIMEOUT = 30.0


class RedisClusterNodes:
    """Three redis-server masters on loopback, joined by hand into one Redis Cluster.

    ``CLUSTER ADDSLOTSRANGE`` and ``CLUSTER MEET`` through redis-py, so only the
    redis-server binary is needed (not redis-cli's ``--cluster create``).
    """

    def __init__(self, directory):
        self.nodes = []
        for index in range(len(CLUSTER_SLOTS)):
            node_dir = directory / f"node{index}"
            node_dir.mkdir()
            flags = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
            self.nodes.append(RedisServer(node_dir, port=_free_cluster_port(), flags=flags))
        self.url = self.nodes[0].url

    def start(self):
        try:
            for node in self.nodes:
                node.start()
            clients = [node.client() for node in self.nodes]
            try:
                for client, (first, last) in zip(clients, CLUSTER_SLOTS, strict=True):
                    client.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
                for node in self.nodes[1:]:
                    clients[0].execute_command("CLUSTER", "MEET", "127.0.0.1", node.port)
                deadline = time.monotonic() + _CLUSTER_READY_TIMEOUT
                while not all(_cluster_ok(client, len(self.nodes)) for client in clients):
                    if time.monotonic() > deadline:
                        raise RuntimeError("the test Redis Cluster did not become ready")
                    time.sleep(0.05)
            finally:
                for client in clients:
                    client.close()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        for node in self.nodes:
            node.stop()

    def node_of(self, slot):
        """The node serving ``slot``."""
        for node, (first, last) in zip(self.nodes, CLUSTER_SLOTS, strict=True):
            if first <= slot <= last:
                return node
        raise ValueError(f"slot {slot} is outside 0..16383")


def _cluster_ok(client, size):
    info = client.cluster("info")
    return info.get("cluster_state") == "ok" and int(info.get("cluster_known_nodes", 0)) == size


def _running(make):
    """Yield the server ``make()`` builds, started, and stop it after.

    Skips before building anything when the redis-server binary is missing (or fails, when
    ``LLM_RESILIENCE_REQUIRE_REDIS=1``).
    """
    if shutil.which("redis-server") is None:
        reason = "the redis-server binary is not on PATH (apt-get install redis-server)"
        if os.environ.get(REQUIRE_REDIS) == "1":
            pytest.fail(f"{REQUIRE_REDIS}=1 but {reason}")
        pytest.skip(reason)
    server = make().start()
    yield server
    server.stop()


@pytest.fixture
def redis_running():
    """The function the Redis fixtures start their servers through, to test it alone."""
    return _running


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """One redis-server for the session (tests keep apart by key prefix)."""
    yield from _running(lambda: RedisServer(tmp_path_factory.mktemp("redis")))


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory):
    """A three-master Redis Cluster on loopback for the session."""
    yield from _running(lambda: RedisClusterNodes(tmp_path_factory.mktemp("redis-cluster")))


@pytest.fixture
def own_redis_server(tmp_path):
    """A redis-server of this test's own, which the test may stop or pause."""
    yield from _running(lambda: RedisServer(tmp_path))


@pytest.fixture
def prefix():
    """A key prefix no other test uses."""
    return f"test-{uuid.uuid4().hex[:12]}"
