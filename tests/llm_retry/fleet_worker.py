"""A worker process for the Redis tests: one job, its result as JSON on stdout.

Run as ``python fleet_worker.py JOB URL PREFIX SCOPE [ARG...]``:

* ``rate_limit RETRY_AFTER``: one call that gets a 429 with ``Retry-After``;
* ``call DEADLINE``: one call that succeeds, timed from start to its first attempt (and
  that attempt's wall-clock time, the clock Redis ``TIME`` reads on this machine);
* ``spend CAPACITY TRIES``: try to take ``TRIES`` budget tokens, one at a time;
* ``admit AT``: ask for admission once, at wall-clock time ``AT`` (so the processes race).
"""

import dataclasses
import json
import sys
import time

from llm_errors import RateLimitError
from llm_retry import RetryBudget, RetryPolicy, retry_info
from llm_retry.redis import RedisCoordination


def main(job, url, prefix, scope, *args):
    coordination = RedisCoordination(url, prefix=prefix, timeout=2.0)
    policy = RetryPolicy(coordination=coordination, scope=scope, on_retry=None, max_attempts=1)
    try:
        if job == "rate_limit":
            result = rate_limit(policy, float(args[0]))
        elif job == "call":
            result = call(policy, float(args[0]))
        elif job == "admit":
            coordination.cooldown(scope)  # connected, scripts loaded: the race is the admission
            time.sleep(max(0.0, float(args[0]) - time.time()))
            admission = coordination.admit(scope)
            result = {"wait": admission.wait, "probe": admission.probe is not None}
        else:
            budget = RetryBudget(float(args[0]))
            result = {
                "granted": sum(coordination.try_spend(scope, budget) for _ in range(int(args[1])))
            }
        result["fallbacks"] = coordination.fallbacks
    finally:
        coordination.close()
    sys.stdout.write(json.dumps(result) + "\n")


def rate_limit(policy, retry_after):
    @policy.wrap
    def limited():
        raise RateLimitError("429 Too Many Requests", status=429, retry_after=retry_after)

    try:
        limited()
    except RateLimitError:
        return {"limited": True}
    return {"limited": False}


def call(policy, deadline):
    policy = dataclasses.replace(policy, deadline=deadline)
    started = time.monotonic()
    first = []

    def work():
        first.append((time.monotonic() - started, time.time()))
        return "ok"

    try:
        policy.wrap(work)()
    except RateLimitError as error:
        info = retry_info(error)
        return {"outcome": "rate_limited", "reason": info.reason, "attempts": info.attempts}
    return {"outcome": "ok", "first_attempt_after": first[0][0], "first_attempt_at": first[0][1]}


if __name__ == "__main__":
    main(*sys.argv[1:])
