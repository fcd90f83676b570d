"""The Dask recipe of docs/classifier.md, on a real local cluster over a folder of gzip logs.

Two worker processes on 127.0.0.1 (no dashboard) read gzip logs written here, whose error
lines carry real messages of the corpus; the counts per code must be what
``classify_many`` gives the same lines in this process.
"""

import gzip
import logging
from collections import Counter

import dask
import pytest
from distributed import Client, LocalCluster

from llm_errors import ErrorCode, classify_many

pytestmark = pytest.mark.integration

#: Seconds a worker process may take to start and reach the scheduler, and the client
#: to connect (each bounded on its own).
START_TIMEOUT = 60.0
#: Seconds the count may take on the cluster.
COMPUTE_TIMEOUT = 60.0
#: Seconds closing the client and the cluster may take.
CLOSE_TIMEOUT = 30.0

#: Corpus rows whose messages the logs' error lines carry, one per code they are labelled.
ERROR_ROWS = {
    "fresha-together-018": ErrorCode.SERVER,
    "q-opencode-003": ErrorCode.RATE_LIMIT,
    "timeout-claudecode-001": ErrorCode.TIMEOUT,
    "fresha-ollama-025": ErrorCode.TRANSPORT,
    "auth-openai-004": ErrorCode.AUTH,
    "q-openai-007": ErrorCode.QUOTA_EXCEEDED,
    "cf-baidu-003": ErrorCode.CONTEXT_OVERFLOW,
}
#: Ordinary lines of an application log, between the errors.
ORDINARY = (
    "INFO app.api: request completed in 182 ms",
    "DEBUG app.worker: heartbeat ok queue_depth=3",
    "INFO app.sched: scheduled job finished",
)


@pytest.fixture(scope="module")
def client():
    """A client of a two-process ``LocalCluster`` on loopback, closed after the module."""
    with dask.config.set({"distributed.comm.timeouts.connect": f"{START_TIMEOUT}s"}):
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
            death_timeout=START_TIMEOUT,
        )
    try:
        with Client(cluster, timeout=START_TIMEOUT) as connected:
            connected.wait_for_workers(2, timeout=START_TIMEOUT)
            yield connected
    finally:
        cluster.close(timeout=CLOSE_TIMEOUT)


@pytest.fixture
def logs(tmp_path, corpus):
    """Three gzip logs of errors (real messages) and ordinary lines; their lines, in order."""
    folder = tmp_path / "logs"
    folder.mkdir()
    messages = [corpus[row] for row in ERROR_ROWS]
    written: list[str] = []
    for number in range(3):
        lines = []
        for index, message in enumerate(messages[number:] * (number + 1)):
            lines.append(f"2026-07-22 10:0{number}:{index:02d},123 ERROR app.llm: {message}")
            lines.append(f"2026-07-22 10:0{number}:{index:02d},124 {ORDINARY[index % 3]}")
        with gzip.open(folder / f"app-{number}.log.gz", "wt", encoding="utf-8") as file:
            file.write("\n".join(lines) + "\n")
        written += lines
    return folder, written


def test_counts_per_code_are_those_of_classify_many(recipe, client, logs):
    """The cluster's counts equal those of classify_many on the same lines in this process."""
    folder, lines = logs
    counts = recipe("dask").count_codes(client, str(folder / "*.log.gz"), timeout=COMPUTE_TIMEOUT)
    found = classify_many(lines)
    expected = Counter(
        code.value for code, rule in zip(found.code, found.rule, strict=True) if rule != "fallback"
    )
    assert counts == expected
    errors = [line for line in lines if " ERROR " in line]
    assert sum(counts.values()) == len(errors) == 7 + 12 + 15
    assert set(counts) == {code.value for code in ERROR_ROWS.values()}
    assert all(type(code) is str for code in counts)
