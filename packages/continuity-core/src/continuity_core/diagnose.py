"""`baker doctor`'s checks: each one a Finding with what to do about it."""

from __future__ import annotations

import datetime as dt
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from continuity_core.adapters import Adapter, Finding, load_all
from continuity_core.config import config_path, load_config
from continuity_core.errors import BakerError
from continuity_core.fs import is_loose
from continuity_core.handoff import project_root
from continuity_core.schemas.config import GlobalConfig
from continuity_core.store import Store

STALE_CHECKPOINT_H = 24


def run(start: Path | None = None) -> list[Finding]:
    from continuity_core import trust

    root = project_root(start)
    store = Store(root, verify=False)
    out: list[Finding] = []
    refused = [*trust.store_problems(root), *_home_problems()]
    out += [Finding(level="error", message=f"not used: {e}") for e in refused]
    try:
        config = load_config()
        out.append(
            Finding(
                level="ok",
                message=f"config {config_path()} is valid"
                if os.path.exists(config_path())
                else "no ~/.baker/config.toml (defaults)",
            )
        )
    except BakerError as e:
        out.append(Finding(level="error", message=str(e)))
        config = GlobalConfig()
    out += _baker_on_path()
    if not any(e.path.is_relative_to(store.path()) for e in refused):
        out += _store(store)
    adapters, broken = load_all()
    if not adapters and not broken:
        out.append(
            Finding(
                level="warn",
                message="no agent adapters installed",
                fix='pip install "continuity-cli[all]"',
            )
        )
    out += [Finding(level="error", message=err) for err in broken.values()]
    out += _accounts(config, [*adapters, *broken])
    out += _rotation(config, adapters)
    for name, adapter in adapters.items():
        accounts = adapter.accounts(config)
        for acc in accounts:
            exists = Path(acc.dir).is_dir()
            count = sum(1 for _ in adapter.discover(root, [acc])) if exists else 0
            named = acc.dir if acc.name == acc.dir else f"{acc.name} ({acc.dir})"
            out.append(
                Finding(
                    level="ok" if exists else "info",
                    message=f"{name}: account {named}: "
                    + (f"{count} session(s) of this project" if exists else "not present"),
                )
            )
        try:
            out += adapter.doctor(root, accounts)
        except Exception as e:  # one adapter's failure is its own finding
            out.append(Finding(level="error", message=f"{name}: doctor failed: {e}"))
    out += _not_set_up(adapters, config)
    from continuity_core import archive

    out += archive.retention_findings(archive.retention_report(adapters, config))
    return out


def _not_set_up(adapters: Mapping[str, Adapter], config: GlobalConfig) -> list[Finding]:
    """The git repositories where agents ran sessions but `baker init` never did: hooks, even
    user-level ones, write nothing there (a hook never writes into a repository the user did
    not set up), so their sessions keep no checkpoint."""
    from continuity_core.store import project_root as store_root
    from continuity_core.store import worktree_root

    folders: set[str] = set()
    for adapter in adapters.values():
        try:
            refs = list(adapter.all_sessions(adapter.accounts(config)))
        except Exception:  # an adapter's failure is reported by its own doctor
            refs = []
        folders |= {r.cwd for r in refs if r.cwd}
    repos = sorted(
        {
            repo
            for folder in folders
            if os.path.isdir(folder)
            and (repo := worktree_root(folder)) is not None
            and store_root(folder) is None
        }
    )
    if not repos:
        return []
    shown = ", ".join(repos[:10]) + (f" and {len(repos) - 10} more" if len(repos) > 10 else "")
    return [
        Finding(
            level="info",
            message=f"{len(repos)} repositor{'y has' if len(repos) == 1 else 'ies have'} agent "
            f"sessions but no .baker/, so hooks (user-level ones too) keep nothing there: {shown}",
            fix="run `baker init` at the root of each one whose sessions should be kept",
        )
    ]


def _rotation(config: GlobalConfig, adapters: Mapping[str, Adapter]) -> list[Finding]:
    """Each `[rotation] order` entry names an installed agent and, if any, its account."""
    from continuity_core import limits

    out: list[Finding] = []
    for text in config.rotation.order:
        agent = text.partition(":")[0]
        where = f"{config_path()} [rotation] order: {text!r}"
        adapter = adapters.get(agent)
        if adapter is None:
            fix = _nearest(agent, list(adapters), "write {!r}")
            out.append(Finding(level="error", message=f"{where} names no installed agent", fix=fix))
            continue
        try:
            limits.resolve(text, config, adapter)
        except BakerError as e:
            out.append(
                Finding(
                    level="error",
                    message=f"{where}: {e}",
                    fix="add the account under [accounts], or fix the entry",
                )
            )
    return out


def _accounts(config: GlobalConfig, agents: list[str]) -> list[Finding]:
    """Each named account in config.toml: an installed agent and a folder that exists."""
    from continuity_core.adapters.kit import expand

    out: list[Finding] = []
    where = f"{config_path()} [accounts."
    for name, account in config.accounts.items():
        if account.agent not in agents:
            hint = _nearest(account.agent, agents, 'write agent = "{}"')
            out.append(
                Finding(
                    level="error",
                    message=f"{where}{name}]: agent = {account.agent!r} is not an installed agent",
                    fix=f"{hint}, or install that agent's adapter",
                )
            )
        folder = Path(expand(account.dir))
        if not folder.is_dir():
            out.append(
                Finding(
                    level="error",
                    message=f"{where}{name}]: dir = {account.dir!r}: "
                    + ("not a folder" if folder.exists() else "no such folder"),
                    fix="point it at the agent's config folder for that account "
                    "(e.g. ~/.agent-work), or remove the account",
                )
            )
    for agent, folders in config.transcripts.items():
        if agent not in agents:
            out.append(
                Finding(
                    level="error",
                    message=f"{config_path()} [transcripts] {agent}: not an installed "
                    "agent; nothing is read for it",
                    fix=_nearest(agent, agents, "write {} = [...]"),
                )
            )
            continue
        for raw in folders:
            if not Path(expand(raw)).is_dir():
                out.append(
                    Finding(
                        level="warn",
                        message=f"{config_path()} [transcripts] {agent}: {raw!r} is "
                        "not a folder; nothing is read from it",
                        fix="fix the path or remove it",
                    )
                )
    return out


def _nearest(name: str, agents: list[str], write: str) -> str:
    """`write` naming the installed agent closest to `name`, else every installed one."""
    import difflib

    near = difflib.get_close_matches(name, agents, n=1)
    if near:
        return write.format(near[0])
    return f"use one of: {', '.join(sorted(agents))}" if agents else "no adapter is installed"


def _home_problems() -> list[Any]:
    """~/.baker and its parts that fail the trust check (a 0644 config.toml passes)."""
    from continuity_core import trust

    try:
        home = trust.home_path(create=False)
        trust.check_file(os.path.join(home, "config.toml"), home=True)
        trust.check_file(os.path.join(home, "archive.sqlite"), home=True)
        for part in ("cache", "log", "handoffs"):
            trust.home_path(part, create=False)
    except trust.Untrusted as e:
        return [e]
    return []


def _baker_on_path() -> list[Finding]:
    exe = shutil.which("baker")
    if exe is None:
        return [
            Finding(
                level="error",
                message="`baker` is not on PATH, so agent hooks cannot run it",
                fix="run `python3 scripts/dev.py install` in a Continuity checkout "
                "(or put the venv's bin on PATH)",
            )
        ]
    from continuity_core.adapters.kit import cli_version

    if cli_version("baker", timeout_s=20) is None:  # it fails, or says no version
        return [
            Finding(level="error", message=f"{exe} does not run", fix="reinstall continuity-cli")
        ]
    return [Finding(level="ok", message=f"hooks will run {exe}")]


def _store(store: Store) -> list[Finding]:
    if not store.exists:
        return [
            Finding(
                level="warn",
                message=f"{store.root} is not initialized",
                fix="run `baker init` at the repository root",
            )
        ]
    out: list[Finding] = []
    folder = store.path()
    loose = [p for p in [folder, *folder.rglob("*")] if is_loose(p)]
    if loose:
        out.append(
            Finding(
                level="warn",
                message=f"{len(loose)} store path(s) readable by others, e.g. {loose[0]}",
                fix=f"chmod -R go-rwx {folder}",
            )
        )
    else:
        out.append(Finding(level="ok", message=f"{folder} is private"))
    latest = store.checkpoint_paths()[:1]
    if not latest:
        out.append(
            Finding(
                level="info",
                message="no checkpoint yet: hooks have not fired",
                fix="run a turn in your agent, then `baker doctor` again",
            )
        )
    else:
        age = dt.datetime.now().timestamp() - os.path.getmtime(latest[0])
        out.append(
            Finding(
                level="warn" if age > STALE_CHECKPOINT_H * 3600 else "ok",
                message=f"newest checkpoint is {_age(age)} old",
            )
        )
    return out


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{int(seconds)} s"
    if seconds < 7200:
        return f"{int(seconds // 60)} min"
    return f"{seconds / 3600:.1f} h"
