"""Codex set-up: baker's notify, hooks, trust and MCP entry in the user's `config.toml`.

Codex hooks are user-level (`baker global sync`); the project's `.codex/hooks.json` is only
cleaned of what earlier versions of baker wrote there.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from msgspec import structs

from continuity_codex import config as cfg
from continuity_codex.adapter import CHAIN, TRUST
from continuity_core import agentfiles
from continuity_core.adapters import Account, Change, UserOptions, kit
from continuity_core.fs import FILE_MODE, atomic_write

TRUST_HOW = (
    "Codex skips hooks it does not trust, silently. Trust baker's with "
    "`baker global sync --trust` (writes their hashes under [hooks.state] in {path}), or "
    "approve them in the Codex TUI's hooks review."
)


def install(project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
    # Codex runs trusted hooks of both layers, so project hooks beside the user-level ones
    # that `baker global sync --trust` installs would fire twice (seen with codex 0.171).
    return [
        Change(
            path=str(Path(".codex") / "hooks.json"),  # relative, as every other project file
            action="skipped",
            detail=(
                "Codex hooks are user-level: `baker global sync --trust` installs notify and "
                "hooks once for the user; they act in each project set up with `baker init`"
            ),
        )
    ]


def install_mcp(project: Path, *, remove: bool = False, dry_run: bool = False) -> list[Change]:
    return [
        Change(
            path=str(project / ".codex" / "config.toml"),
            action="skipped",
            detail=(
                "Codex reads MCP servers from the user's config.toml: `baker global sync --mcp` "
                "registers baker mcp there for every project"
            ),
        )
    ]


def uninstall(project: Path, *, dry_run: bool = False) -> list[Change]:
    shown = str(Path(".codex") / "hooks.json")  # relative, as every other project file
    path = project / shown
    try:
        real = agentfiles.resolve(path, project).path  # no link out of the project
        data = _read_json(real)
    except (ValueError, agentfiles.Refused) as e:
        return [Change(path=shown, action="failed", detail=str(e))]
    new = cfg.hooks_json_remove(json.loads(json.dumps(data)))
    if new == data:
        return [Change(path=shown, action="unchanged")]
    try:
        agentfiles.check_writable(real)
    except agentfiles.Refused as e:
        return [Change(path=shown, action="failed", detail=str(e))]
    if not dry_run:
        if new:
            atomic_write(real, json.dumps(new, indent=2) + "\n")
        else:  # only earlier versions of baker wrote this file
            real.unlink()
            with contextlib.suppress(OSError):  # the folder holds the user's own files
                real.parent.rmdir()
    return [
        Change(
            path=shown,
            action="removed" if not new else "updated",
            detail="baker's hooks removed",
        )
    ]


def install_user(account: Account, options: UserOptions) -> list[Change]:
    """baker's notify, hooks (and their trust) and MCP entry into the account's `config.toml`,
    or out of it (`options.uninstall`), every other byte of the file kept."""
    home = Path(account.dir)
    path = home / "config.toml"
    if not home.is_dir():
        return [
            Change(
                path=str(home),
                action="skipped",
                detail="no Codex home here; run codex once to create it",
            )
        ]
    source = trust_source(account)
    done: list[str] = []  # what the edit did, said in the file's line
    skipped: list[Change] = []  # parts left as they were, a line each

    def edit(text: str | None) -> str | None:
        import tomlkit
        from tomlkit.exceptions import ParseError

        before = text or ""
        try:
            doc = tomlkit.parse(before)
        except ParseError as e:
            raise ValueError(f"not valid TOML ({e}); fix it and sync again") from None
        if options.uninstall:
            done.extend(_take_out(doc, source))
        else:
            done.extend(_put_in(doc, source, options, path, skipped))
        after = cfg.dumps(doc, before)
        return None if after == before else after

    # a dotfile manager's link is written through to its target, and said so
    change = kit.edit_settings_file(
        path, None, edit, adding=not options.uninstall, dry_run=options.dry_run, mode=FILE_MODE
    )
    if done and change.action != "failed":
        change = structs.replace(change, detail="; ".join(filter(None, [*done, change.detail])))
    return [change, *skipped]


def _take_out(doc: Any, source: str) -> list[str]:
    """baker's keys out of the parsed config; what went."""
    done = [
        said
        for removed, said in (
            (cfg.remove_notify(doc), "notify removed"),
            (cfg.remove_trust(doc, source), "trusted hashes removed"),
            (cfg.remove_hooks(doc), "hooks removed"),
            (cfg.remove_mcp(doc), "MCP server removed"),
        )
        if removed
    ]
    cfg.tidy(doc)
    return done


def _put_in(
    doc: Any, source: str, options: UserOptions, path: Path, changes: list[Change]
) -> list[str]:
    """baker's keys into the parsed config: what was done; a `skipped` line into `changes` for
    each part left as it was (someone else's notify, untrusted hooks, an MCP name taken)."""
    import tomlkit

    done: list[str] = []
    outcome = cfg.set_notify(doc, chain=options.declared.get(CHAIN.name, False))
    if outcome == "added":
        done.append("notify added")
    elif outcome == "chained":
        done.append("notify chained: your program runs first, then baker")
    elif outcome == "kept":
        _, other = cfg.notify_state(doc)
        changes.append(
            Change(
                path=str(path),
                action="skipped",
                detail=(
                    f"notify already runs {other}; Codex allows one program, so baker left it. "
                    "Run `baker global sync --chain` to keep it and add baker after it"
                ),
            )
        )
    if options.hooks is not False:  # Codex reads hooks only here: on unless turned off
        before_doc = tomlkit.dumps(doc)
        placed = cfg.add_hooks(doc)
        if tomlkit.dumps(doc) != before_doc:
            done.append("hooks " + ", ".join(h.event for h in cfg.HOOKS) + " added")
        if options.declared.get(TRUST.name, False):
            if cfg.set_trust(doc, source, placed):
                done.append("hooks trusted")
        elif any(s != "trusted" for _, s in cfg.trust_status(doc, source)):
            changes.append(
                Change(
                    path=f"{path} [hooks.state]",
                    action="skipped",
                    detail=TRUST_HOW.format(path=path),
                )
            )
    if options.mcp:
        outcome = cfg.set_mcp(doc)
        if outcome == "added":
            done.append("MCP server `baker` added")
        elif outcome == "taken":
            changes.append(
                Change(
                    path=f"{path} [mcp_servers.baker]",
                    action="skipped",
                    detail="that name runs something else; baker left "
                    "it alone (rename it to register baker mcp)",
                )
            )
    return done


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
