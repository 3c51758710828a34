"""Continuity adapter for Codex CLI: rollouts, notify and hooks, launch.

Vendor formats stay in this package (`formats/codex.md` records what Codex 0.171.0 writes);
only core schemas leave it.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from continuity_codex import config as cfg
from continuity_codex import discovery, hooks, launch, parser
from continuity_core import agentfiles
from continuity_core.adapters import (
    Account,
    Change,
    Finding,
    LaunchOptions,
    LaunchSpec,
    RetentionPolicy,
    UsageSource,
    UserOptions,
    kit,
)
from continuity_core.fs import atomic_write
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import SessionRef
from continuity_core.transcript import Cursor

__all__ = ["CodexAdapter"]

TRUST_HOW = (
    "Codex skips hooks it does not trust, silently. Trust baker's with "
    "`baker global sync --trust` (writes their hashes under [hooks.state] in {path}), or "
    "approve them in the Codex TUI's hooks review."
)


class CodexAdapter:
    """The Adapter for OpenAI's Codex CLI."""

    name = "codex"
    display_name = "Codex CLI"
    known_versions: tuple[str, ...] = ("0.171.0",)
    # formats/codex.md records only the user skill root (~/.codex/skills); `.agents/skills` is
    # the repository folder Codex's documentation names for project skills (not verified here).
    skill_dirs: tuple[str, ...] = (".agents/skills",)
    skill_command: str | None = "$continuity"
    exit_input: tuple[str, ...] = ()  # `baker run` ends it with signals
    retention: RetentionPolicy | None = None  # Codex keeps rollouts
    usage_source: UsageSource | None = None

    # --- sessions ----------------------------------------------------------------------------

    def accounts(self, config: GlobalConfig) -> list[Account]:
        return discovery.accounts(config)

    def discover(self, project: Path, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        return discovery.discover(project, accounts)

    def all_sessions(self, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        return discovery.all_sessions(accounts)

    def read(self, ref: SessionRef, cursor: Cursor | None = None) -> Cursor:
        if not ref.path.endswith(".zst"):
            return parser.read(ref, cursor)
        from continuity_core import trust

        plain = discovery.plain_copy(ref.path, trust.home_dir("cache", "codex"))
        if plain is None:
            raise OSError(f"cannot decompress {ref.path}: install zstandard or zstd")
        cursor = parser.read(msgspec.structs.replace(ref, path=plain), cursor)
        cursor.session.path = ref.path
        return cursor

    # --- hooks -------------------------------------------------------------------------------

    def parse_hook(self, payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
        return hooks.parse(payload, argv)

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        if event.agent != self.name:
            return None
        path = event.transcript_path
        if path and os.path.isfile(path):
            owner = next((a for a in accounts if path.startswith(a.dir.rstrip("/") + "/")), None)
            home = discovery.home_of(path)
            return discovery.ref_for(path, owner or Account(agent=self.name, name=home, dir=home))
        if event.session_id:  # notify carries only the thread id; title threads have no rollout
            return discovery.by_thread(event.session_id, accounts)
        return None

    def render_context(self, event: HookEvent, text: str) -> str | None:
        return hooks.render(event, text)

    # --- set-up ------------------------------------------------------------------------------

    def install(self, project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
        # Codex runs trusted hooks of both layers, so project hooks beside the user-level ones
        # that `baker global sync --trust` installs would fire twice (seen with codex 0.171).
        return [Change(path=str(project / ".codex" / "hooks.json"), action="skipped", detail=(
            "Codex hooks are user-level: `baker global sync --trust` installs notify and "
            "hooks for every project"))]

    def install_mcp(self, project: Path, *, remove: bool = False,
                    dry_run: bool = False) -> list[Change]:
        return [Change(path=str(project / ".codex" / "config.toml"), action="skipped", detail=(
            "Codex reads MCP servers from the user's config.toml: `baker global sync --mcp` "
            "registers baker mcp there for every project"))]

    def uninstall(self, project: Path, *, dry_run: bool = False) -> list[Change]:
        path = project / ".codex" / "hooks.json"
        try:
            real = agentfiles.resolve(path, project).path  # no link out of the project
            data = _read_json(real)
        except (ValueError, agentfiles.Refused) as e:
            return [Change(path=str(path), action="failed", detail=str(e))]
        new = cfg.hooks_json_remove(json.loads(json.dumps(data)))
        if new == data:
            return [Change(path=str(path), action="unchanged")]
        try:
            agentfiles.check_writable(real)
        except agentfiles.Refused as e:
            return [Change(path=str(path), action="failed", detail=str(e))]
        if not dry_run:
            if new:
                atomic_write(real, json.dumps(new, indent=2) + "\n")
            else:  # only earlier versions of baker wrote this file
                real.unlink()
                with contextlib.suppress(OSError):  # the folder holds the user's own files
                    real.parent.rmdir()
        return [Change(path=str(path), action="removed" if not new else "updated",
                       detail="baker's hooks removed")]

    def install_user(self, account: Account, options: UserOptions) -> list[Change]:
        home = Path(account.dir)
        path = home / "config.toml"
        if not home.is_dir():
            return [Change(path=str(home), action="skipped",
                           detail="no Codex home here; run codex once to create it")]
        try:  # a dotfile manager's link is written through to its target, and said so
            target = agentfiles.resolve(path, None)
        except agentfiles.Refused as e:
            return [Change(path=str(path), action="failed", detail=str(e))]
        try:
            before = target.path.read_bytes().decode("utf-8")  # keeps CRLF line ends
        except FileNotFoundError:
            before = ""
        import tomlkit
        from tomlkit.exceptions import ParseError

        try:
            doc = tomlkit.parse(before)
        except ParseError as e:
            return [Change(path=str(path), action="failed",
                           detail=f"not valid TOML ({e}); fix it and sync again")]
        source = trust_source(account)
        changes: list[Change] = []
        done: list[str] = []
        if options.uninstall:
            if cfg.remove_notify(doc):
                done.append("notify removed")
            if cfg.remove_trust(doc, source):
                done.append("trusted hashes removed")
            if cfg.remove_hooks(doc):
                done.append("hooks removed")
            if cfg.remove_mcp(doc):
                done.append("MCP server removed")
            cfg.tidy(doc)
        else:
            outcome = cfg.set_notify(doc, chain=options.chain)
            if outcome == "added":
                done.append("notify added")
            elif outcome == "chained":
                done.append("notify chained: your program runs first, then baker")
            elif outcome == "kept":
                _, other = cfg.notify_state(doc)
                changes.append(Change(path=str(path), action="skipped", detail=(
                    f"notify already runs {other}; Codex allows one program, so baker left it. "
                    "Run `baker global sync --chain` to keep it and add baker after it")))
            if options.hooks:
                before_doc = tomlkit.dumps(doc)
                placed = cfg.add_hooks(doc)
                if tomlkit.dumps(doc) != before_doc:
                    done.append("hooks " + ", ".join(h.event for h in cfg.HOOKS) + " added")
                if options.trust:
                    if cfg.set_trust(doc, source, placed):
                        done.append("hooks trusted")
                elif any(s != "trusted" for _, s in cfg.trust_status(doc, source)):
                    changes.append(Change(path=f"{path} [hooks.state]", action="skipped",
                                          detail=TRUST_HOW.format(path=path)))
            if options.mcp:
                outcome = cfg.set_mcp(doc)
                if outcome == "added":
                    done.append("MCP server `baker` added")
                elif outcome == "taken":
                    changes.append(Change(path=f"{path} [mcp_servers.baker]", action="skipped",
                                          detail="that name runs something else; baker left "
                                                 "it alone (rename it to register baker mcp)"))
        after = cfg.dumps(doc, before)
        if after == before:
            return [Change(path=str(path), action="unchanged"), *changes]
        try:
            agentfiles.check_writable(target.path)
        except agentfiles.Refused as e:
            return [Change(path=str(path), action="failed", detail=str(e)), *changes]
        if not options.dry_run:
            atomic_write(target.path, after)
        detail = "; ".join([*done, *filter(None, [target.via])])
        if options.uninstall:
            return [Change(path=str(path), action="removed", detail=detail), *changes]
        return [Change(path=str(path), action="updated" if before else "created", detail=detail),
                *changes]

    # --- launch and checks -------------------------------------------------------------------

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        return launch.build(project, brief, options)

    def doctor(self, project: Path, accounts: Sequence[Account]) -> list[Finding]:
        findings: list[Finding] = []
        findings.append(kit.version_finding(
            "Codex", self.cli_version(), self.known_versions, program=launch.PROGRAM,
            fix="upgrade continuity-codex"))
        project_hooks = project / ".codex" / "hooks.json"
        for account in accounts:
            if os.path.isdir(account.dir):
                findings += _account_findings(account, project_hooks)
        if project_hooks.is_file() and not any("both" in f.message for f in findings):
            findings.append(Finding(level="info", message=(
                f"{project_hooks}: Codex runs these only in a trusted project and once each "
                "hook is trusted")))
        return findings

    def cli_version(self) -> str | None:
        return kit.cli_version(launch.PROGRAM)


def trust_source(account: Account) -> str:
    """The config file path as Codex writes it in trust keys (CODEX_HOME is canonicalized)."""
    home = os.path.realpath(account.dir) if account.name == "CODEX_HOME" else account.dir
    return os.path.join(home, "config.toml")


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read {path}: {e}; fix or remove it") from None
    if not isinstance(value, dict):
        raise ValueError(f"{path} is not a JSON object; fix or remove it")
    return value


def _account_findings(account: Account, project_hooks: Path) -> list[Finding]:
    import tomlkit
    from tomlkit.exceptions import ParseError

    path = Path(account.dir) / "config.toml"
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        doc = tomlkit.document()
    except (OSError, ParseError) as e:
        return [Finding(level="error", message=f"{path}: {e}", fix="fix the file")]
    out: list[Finding] = []
    state, other = cfg.notify_state(doc)
    if state == "absent":
        out.append(Finding(level="warn", message=f"{path}: no notify, so turns end unrecorded",
                           fix="baker global sync"))
    elif state == "other":
        out.append(Finding(level="warn", message=f"{path}: notify runs {other}, not baker",
                           fix="baker global sync --chain"))
    else:
        out.append(Finding(level="ok", message=f"{path}: notify runs baker"))
    source = trust_source(account)
    statuses = list(cfg.trust_status(doc, source))
    if cfg.trusted_elsewhere(doc, str(project_hooks)) and any(
            s == "trusted" for _, s in statuses):
        # Seen with codex-cli 0.171.0: both layers run; baker skips the second call.
        out.append(Finding(level="info", message=(
            f"baker's hooks are trusted both in {path} (user level) and in {project_hooks} "
            "(project); Codex calls each twice and baker deduplicates the calls, so each "
            "event runs once"), fix="to save the second process: baker uninstall in this "
            f"project, or remove the [hooks.state] entries for {project_hooks} from {path}"))
    for hook, status in statuses:
        if status == "trusted":
            continue
        level = "info" if status == "missing" else "warn"
        fix = "baker global sync --trust" if status != "missing" else "baker global sync"
        out.append(Finding(level=level,  # type: ignore[arg-type]
                           message=f"{path}: {hook.event} hook is {status}"
                           + (" — Codex skips it silently" if status != "missing" else ""),
                           fix=fix))
    return out
