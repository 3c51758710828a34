"""A fourth, minimal agent adapter: proof that the seam needs no change to core or the CLI.

The fake agent keeps one JSONL transcript per session under `$FAKE_AGENT_HOME/sessions/`
(default `~/.fake-agent`): a `meta` line with the session id and working folder, then `user`,
`assistant`, `tool` and `shell` lines (a command with its exit status and output). Its hooks send one JSON object on stdin
(`{"event": "pre_tool", "session_id": …, "cwd": …, "tool": …, "path": …}`) and read
`{"context": text}` back. It plugs in through the `continuity_core.adapters` entry point.
"""

from __future__ import annotations

import json
import os

from continuity_core.adapters import (
    Account,
    Change,
    Finding,
    InstallOption,
    LaunchOptions,
    LaunchSpec,
    RetentionPolicy,
    SessionRecords,
    UsageSource,
    UserOptions,
    kit,
)
from continuity_core.adapters.kit import expand
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.hook import EventKind, HookEvent
from continuity_core.schemas.session import Session, SessionRef, ToolCall
from continuity_core.transcript import (
    Cursor,
    add_call,
    add_edit,
    add_message,
    add_request,
    read_incremental,
)

# The hooks load this module: what they need only for types stays out of their way
# (AdapterContract checks it), and `pathlib` loads where a session is listed.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path
    from typing import Any

HOME_ENV = "FAKE_AGENT_HOME"
MARKER = "baker-marker"  # what the declared `--mark` install option leaves in an account
KINDS: dict[str, EventKind] = {
    "start": "session_start",
    "pre_tool": "pre_tool",
    "stop": "stop",
    "end": "session_end",
}


def fold(session: Session, extra: dict[str, Any], line: bytes) -> None:
    rec = json.loads(line)
    kind, ts = rec["type"], rec.get("ts")
    if kind == "meta":
        session.session_id, session.cwd = rec["id"], rec["cwd"]
    elif kind == "user":
        add_request(session, extra, rec["text"], ts)
    elif kind == "assistant":
        add_message(session, extra, "assistant", rec["text"], timestamp=ts)
    elif kind == "tool":
        add_call(
            session,
            extra,
            ToolCall(
                id=rec["id"],
                name=rec["name"],
                input={"path": rec.get("path", "")},
                output="ok",
                timestamp=ts,
            ),
        )
        if rec["name"] == "edit":
            add_edit(session, rec["path"], tool="edit")
    elif kind == "shell":  # the seam's one shape for what was run (docs/adapters.md)
        kit.add_command(
            session, rec["command"], exit_code=rec.get("exit"), output=rec["output"], timestamp=ts
        )
    else:
        session.unknown_records[kind] = session.unknown_records.get(kind, 0) + 1


def _head(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        first = json.loads(f.readline() or b"{}")
    return first if isinstance(first, dict) else {}


class FakeAdapter:
    name = "fake"
    display_name = "Fake Agent"
    known_versions: tuple[str, ...] = ("1.0.0",)
    skill_dirs: tuple[str, ...] = (".fake/skills",)
    skill_command: str | None = None
    exit_input: tuple[str, ...] = ()
    retention: RetentionPolicy | None = None
    usage_source: UsageSource | None = None
    session_records: SessionRecords | None = None  # each session is a JSONL file
    # One declared option: `baker global sync --mark` shows it and hands its value back here.
    install_options: tuple[InstallOption, ...] = (
        InstallOption(name="mark", help="Leave a marker file in each fake-agent folder."),
    )
    env_vars: tuple[str, ...] = (HOME_ENV,)

    def accounts(self, config: GlobalConfig) -> list[Account]:
        home = os.environ.get(HOME_ENV) or "~/.fake-agent"
        return [Account(agent=self.name, name=home, dir=expand(home))]

    def _refs(self, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        for account in accounts:
            from pathlib import Path

            for path in sorted(Path(account.dir, "sessions").glob("*.jsonl")):
                st = path.stat()
                head = _head(path)
                yield SessionRef(
                    agent=self.name,
                    account=account.name,
                    session_id=str(head.get("id", path.stem)),
                    path=str(path),
                    mtime=st.st_mtime,
                    cwd=head.get("cwd"),
                    size=st.st_size,
                )

    def discover(
        self, project: str | os.PathLike[str], accounts: Sequence[Account]
    ) -> Iterator[SessionRef]:
        root = os.path.realpath(project)
        mine = [
            r
            for r in self._refs(accounts)
            if r.cwd and (r.cwd == root or r.cwd.startswith(root + os.sep))
        ]
        return iter(sorted(mine, key=lambda r: r.mtime, reverse=True))

    def all_sessions(self, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        return self._refs(accounts)

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        return read_incremental(ref, cursor, fold)

    def archive_text(self, record: object) -> list[str]:
        from continuity_core.archive.extraction import strings

        return strings(record)  # the common keys are all a fake record has

    def parse_hook(self, payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
        try:
            data = json.loads(payload)
        except ValueError:
            raise ValueError("not a fake-agent hook payload") from None
        if not isinstance(data, dict) or data.get("event") not in KINDS:
            raise ValueError("not a fake-agent hook payload")
        path = data.get("path")
        return HookEvent(
            agent=self.name,
            kind=KINDS[data["event"]],
            native=data["event"],
            session_id=data.get("session_id"),
            cwd=data.get("cwd"),
            transcript_path=data.get("transcript"),
            tool_name=data.get("tool"),
            tool_input={"path": path} if path else {},
            paths=[path] if isinstance(path, str) else [],
        )

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        for ref in self._refs(accounts):
            if ref.session_id == event.session_id:
                return ref
        return None

    def render_context(self, event: HookEvent, text: str) -> str | None:
        return json.dumps({"context": text})

    def install(self, project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
        return [
            Change(
                path=str(project / ".fake"),
                action="skipped",
                detail="the fake agent has no project hooks",
            )
        ]

    def uninstall(self, project: Path, *, dry_run: bool = False) -> list[Change]:
        return []

    def install_user(self, account: Account, options: UserOptions) -> list[Change]:
        if not options.declared.get("mark"):
            return [Change(path=account.dir, action="skipped", detail="nothing at user level")]
        from pathlib import Path

        marker = Path(account.dir) / MARKER
        if not options.dry_run:
            marker.write_text("marked by baker global sync --mark\n")
        return [Change(path=str(marker), action="created", detail="marker left")]

    def install_mcp(
        self, project: Path, *, remove: bool = False, dry_run: bool = False
    ) -> list[Change]:
        return [Change(path=str(project), action="skipped", detail="no MCP support")]

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        return LaunchSpec(argv=["fake-agent", "--brief-file", str(brief)], cwd=str(project))

    def doctor(self, project: Path, accounts: Sequence[Account]) -> list[Finding]:
        found = sum(1 for _ in self._refs(accounts))
        return [Finding(level="ok", message=f"fake agent: {found} session(s)")]

    def cli_version(self) -> str | None:
        return None
