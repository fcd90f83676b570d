"""Rebuild this folder's data from pi-ai's reference: ``python regenerate.py <reference dir>``.

The reference folder holds pi-ai 1.6.0's recorded traces and the fake server that
produced them (``sse_server.py``). This keeps what the conformance test compares
(``pi-ai-1.6.0.json``: per scenario the event types and content indices, the final
stop reason and blocks, the captured request body) and the server's responses as
bytes (``responses.json``), so the test needs nothing outside the repository.
"""

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def _trace(scenario: dict[str, Any]) -> dict[str, Any]:
    final = scenario.get("final") or {}
    kept: dict[str, Any] = {
        "events": [[event["type"], event.get("contentIndex")] for event in scenario["events"]],
        "stopReason": final.get("stopReason"),
        "errorMessage": final.get("errorMessage"),
        "content": final.get("content"),
    }
    if "request" in scenario:
        kept["request"] = scenario["request"]["body"]
    return kept


def _response(server: Any, scenario: dict[str, Any]) -> dict[str, Any]:
    if scenario["kind"] == "sse":
        frames = [server.sse(event).decode() for event in scenario["events"]]
        return {
            "kind": "sse",
            "frames": frames,
            "end": scenario.get("end", "clean"),
            "delay": scenario.get("delay", 0.0),
        }
    if "body_text" in scenario:
        body = scenario["body_text"]
        content_type = scenario.get("content_type", "text/plain")
    else:
        body = json.dumps(scenario["body"])
        content_type = "application/json"
    return {
        "kind": "http",
        "status": scenario["status"],
        "headers": scenario.get("headers", {}),
        "content_type": content_type,
        "body": body,
    }


def main(reference: Path) -> None:
    spec = importlib.util.spec_from_file_location("sse_server", reference / "sse_server.py")
    assert spec is not None
    assert spec.loader is not None
    server = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(server)
    recorded = json.loads((reference / "recorded/earendil-works-pi-ai-1.6.0.json").read_text())
    traces = {name: _trace(scenario) for name, scenario in recorded["scenarios"].items()}
    responses = {name: _response(server, value) for name, value in server.SCENARIOS.items()}
    meta = {key: recorded[key] for key in ("package", "version", "node")}
    (HERE / "pi-ai-1.6.0.json").write_text(
        json.dumps({"recorded": meta, "scenarios": traces}, indent=1, ensure_ascii=False) + "\n"
    )
    (HERE / "responses.json").write_text(json.dumps(responses, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
