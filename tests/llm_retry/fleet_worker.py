"""A worker process for the Redis tests: one job, its result as JSON on stdout.

Run as ``python fleet_worker.py JOB URL PREFIX SCOPE [ARG...]``. The worker imports,
connects and loads the scripts, prints ``ready``, and starts its job when a line comes
on stdin: the test starts every worker first and then releases them together, so a
slow interpreter start-up is not part of what a job measures.

* ``rate_limit RETRY_AFTER``: one call that gets a 429 with ``Retry-After``;
* ``call DEADLINE``: one call that succeeds (or is refused by the shared cooldown),
  with the Redis server's clock read before it, at its first attempt and after it, and
  the waits it made;
* ``spend CAPACITY TRIES``: try to take ``TRIES`` budget tokens, one at a time;
* ``admit``: ask for admission once.

Times are the Redis server's (``TIME``, in seconds), the clock cooldowns are kept in.
"""

import dataclasses
import json
import sys
import time

import redis

from llm_errors import RateLimitError
from llm_retry import RetryBudget, RetryPolicy, retry_info
from llm_retry.redis import RedisCoordination


def main(job, url, prefix, scope, *args):
    coordination = RedisCoordination(url, prefix=prefix, timeout=2.0)
    client = redis.Redis.from_url(url, socket_timeout=10)
    policy = RetryPolicy(coordination=coordination, scope=scope, on_retry=None, max_attempts=1)
    try:
        coordination.cooldown(scope)  # connected, scripts loaded
        server_now(client)
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        sys.stdin.readline()
        if job == "rate_limit":
            result = rate_limit(policy, float(args[0]))
        elif job == "call":
            result = call(policy, float(args[0]), client)
        elif job == "admit":
            admission = coordination.admit(scope)
            refused = admission.refused
            result = {
                "wait": admission.wait,
                "probe": admission.probe is not None,
                "refused": None if refused is None else str(refused),
            }
        else:
            budget = RetryBudget(float(args[0]))
            result = {
                "granted": sum(coordination.try_spend(scope, budget) for _ in range(int(args[1])))
            }
        result["fallbacks"] = coordination.fallbacks
    finally:
        coordination.close()
        client.close()
    sys.stdout.write(json.dumps(result) + "\n")


def server_now(client):
    """The Redis server's clock, in seconds."""
    seconds, micros = client.time()
    return seconds + micros / 1_000_000


def rate_limit(policy, retry_after):
    @policy.wrap
    def limited():
        raise RateLimitError("429 Too Many Requests", status=429, retry_after=retry_after)

    try:
        limited()
    except RateLimitError:
        return {"limited": True}
    return {"limited": False}


def call(policy, deadline, client):
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        time.sleep(seconds)

    attempted = []

    def work():
        attempted.append(server_now(client))
        return "ok"

    policy = dataclasses.replace(policy, deadline=deadline, sleep=sleep)
    started = server_now(client)
    try:
        policy.wrap(work)()
    except RateLimitError as error:
        info = retry_info(error)
        outcome = {"outcome": "rate_limited", "reason": info.reason, "attempts": info.attempts}
    else:
        outcome = {"outcome": "ok", "attempted_at": attempted[0]}
    return {**outcome, "started": started, "ended": server_now(client), "slept": slept}


if __name__ == "__main__":
    main(*sys.argv[1:])
