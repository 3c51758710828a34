"""Indexing throughput and query latency on a generated transcript (printed, not asserted).

Run with `-s` to see the figures. `scripts/bench.py` measures the same thing at 1 GB through
`continuity_core.archive.Archive.index` and `Archive.search`, the calls used here.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from continuity_core.archive import Archive, Source

WORDS = (
    "parser",
    "queue",
    "invoice",
    "retry",
    "schema",
    "latency",
    "cache",
    "tenant",
    "shard",
    "migration",
    "rollback",
    "endpoint",
    "fixture",
    "deploy",
    "token",
    "buffer",
)


def generate(path: Path, megabytes: float, final_request: str) -> int:
    """A Claude-shaped transcript of about `megabytes`: requests, tool calls and outputs."""
    target = int(megabytes * 1_000_000)
    written = 0
    i = 0
    with path.open("w") as f:
        while written < target:
            words = " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(40))
            ts = f"2026-11-30T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z"
            records = [
                {
                    "type": "user",
                    "timestamp": ts,
                    "message": {"role": "user", "content": f"step {i}: fix the {words}"},
                },
                {
                    "type": "assistant",
                    "timestamp": ts,
                    "message": {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"t{i}",
                                "name": "Bash",
                                "input": {"command": f"pytest -k case_{i}"},
                            }
                        ],
                    },
                },
                {
                    "type": "user",
                    "timestamp": ts,
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"t{i}",
                                "content": f"case_{i} passed\n" + words * 4,
                            }
                        ],
                    },
                },
            ]
            for r in records:
                line = json.dumps(r) + "\n"
                f.write(line)
                written += len(line)
            i += 1
        line = json.dumps({"type": "user", "message": {"role": "user", "content": final_request}})
        f.write(line + "\n")
        written += len(line) + 1
    return written


def test_indexing_throughput_and_query_latency(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    size = generate(
        path, 1, "Rename the zyzzogeton flag before the release; key AKIAIOSFODNN7EXAMPLE"
    )
    source = Source(
        kind="transcript",
        agent="claude",
        account="bench",
        session_id="big",
        path=str(path),
        project="/bench",
    )
    with Archive(tmp_path / "archive.sqlite") as archive:
        stats = archive.index_pending(*archive.pending([source]))
        assert stats.bytes == size
        start = time.perf_counter()
        [hit] = archive.search("zyzzogeton", project="/bench")
        distinctive = time.perf_counter() - start
        start = time.perf_counter()
        common = archive.search("tenant shard", project="/bench")
        broad = time.perf_counter() - start
    assert hit.session_id == "big" and common
    assert "AKIAIOSFODNN7EXAMPLE" not in hit.snippet and "[REDACTED]" in hit.snippet
    print(
        f"\narchive: indexed {size / 1e6:.1f} MB in {stats.seconds:.2f} s "
        f"({size / 1e6 / stats.seconds:.1f} MB/s, {stats.rows} rows); query "
        f"distinctive {distinctive * 1000:.1f} ms, common {broad * 1000:.1f} ms"
    )
