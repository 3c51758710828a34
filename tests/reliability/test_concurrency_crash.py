"""Many hook processes at once, and writers killed mid-write, never corrupt the store."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.store import decode_document
from tests.conftest import BAKER, run_baker, sigkill_midway


def test_32_concurrent_checkpoints_keep_exactly_the_newest(repo: Path) -> None:
    run_baker("init", cwd=repo)
    for _ in range(2):
        procs = [
            subprocess.Popen(
                [BAKER, "checkpoint", "--quiet"],
                cwd=repo,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for _ in range(32)
        ]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0 and out == b"" and b"Traceback" not in err
    folder = repo / ".baker" / "checkpoints"
    files = sorted(folder.iterdir())
    assert len(files) == 20, [f.name for f in files]
    for f in files:
        decode_document(f.read_bytes(), Checkpoint, f)
    assert not [p for p in (repo / ".baker").rglob("*") if p.name.endswith(".tmp")]
    log = repo / ".baker" / "log" / "events.jsonl"
    assert not log.exists() or "hook_error" not in log.read_text()


WRITER = r"""
import sys, json
from pathlib import Path
from continuity_core.store import Store
from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.stamps import new_id
from continuity_core import note
from continuity_core.fs import atomic_write
root = Path(sys.argv[1])
store = Store(root)
n = 0
print("ready", flush=True)
while True:
    n += 1
    store.write_checkpoint(Checkpoint(id=new_id(), created_at=str(n)))
    parsed = note.parse(note.template())
    parsed.sections["Now"] = "step %d " % n + "x" * (n % 500)
    note.write(root, parsed)
    atomic_write(root / "settings.json", json.dumps({"n": n, "pad": "y" * (n % 4000)}))
"""


def test_sigkill_at_random_points_never_leaves_a_torn_file(tmp_path: Path) -> None:
    (tmp_path / ".baker").mkdir(mode=0o700)
    rng = random.Random(1234)
    for _ in range(15):
        sigkill_midway([sys.executable, "-c", WRITER, str(tmp_path)], rng.uniform(0.0, 0.15))
        for f in (tmp_path / ".baker" / "checkpoints").glob("*.json"):
            decode_document(f.read_bytes(), Checkpoint, f)
        import json

        if (tmp_path / "settings.json").exists():
            json.loads((tmp_path / "settings.json").read_text())
        text = (
            (tmp_path / "memory" / "hot.md").read_text()
            if (tmp_path / "memory" / "hot.md").exists()
            else "# Now\n"
        )
        assert "# Now" in text and text.endswith("\n")
    # Temp files of killed writers may remain; readers never take them for data.
    leftovers = [p.name for p in tmp_path.rglob("*.tmp")]
    assert all(name.startswith(".") for name in leftovers)


def test_recall_indexing_never_holds_a_hook_past_its_deadline(repo: Path, tmp_path: Path) -> None:
    """Hooks never touch the archive: while `baker recall --index` works through a large
    transcript, checkpoint hooks still finish well within their deadline."""
    from continuity_cli.hooks import DEADLINES_S
    from tests.conftest import FIXTURES, copy_tree

    claude = copy_tree(FIXTURES / "claude" / ".claude", tmp_path / "claude")
    source = next((claude / "projects").glob("*/*.jsonl"))
    big = claude / "projects" / "-big" / "big.jsonl"
    big.parent.mkdir()
    lines = source.read_bytes().splitlines(keepends=True)
    with big.open("wb") as f:
        for _ in range(3000):
            f.writelines(lines)
    env = {"CLAUDE_CONFIG_DIR": str(claude)}
    run_baker("init", cwd=repo, env=env)
    indexer = subprocess.Popen(
        [BAKER, "recall", "--index", "--all-projects"],
        cwd=repo,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        time.sleep(0.5)
        for _ in range(5):
            start = time.monotonic()
            result = run_baker(
                "checkpoint", "--agent", "claude", "--quiet", cwd=repo, env=env, input=b"{}"
            )
            assert result.returncode == 0
            assert time.monotonic() - start < DEADLINES_S["checkpoint"]
        assert indexer.poll() in (None, 0), indexer.communicate()[1]
    finally:
        indexer.kill()
        indexer.communicate()
