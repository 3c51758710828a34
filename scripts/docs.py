#!/usr/bin/env python3
"""Generate the docs that must match the code: the command reference from `--help`, the JSON
Schemas of the persisted formats, and the README's command list.

    python scripts/docs.py           # write them
    python scripts/docs.py --check   # exit 1 (and say which) when any is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click
import msgspec

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
REFERENCE = ROOT / "docs" / "commands.md"
SCHEMAS = ROOT / "docs" / "schemas"
WIDTH = 88


def persisted() -> dict[str, object]:
    """Every document Continuity writes to disk or prints as JSON, by schema file name."""
    from continuity_core import brief
    from continuity_core.schemas.checkpoint import Checkpoint
    from continuity_core.schemas.config import GlobalConfig
    from continuity_core.schemas.handoff import HandoffDoc
    from continuity_core.schemas.probe import ProbesFile
    from continuity_core.schemas.session import Session
    from continuity_core.schemas.trap import Trap
    from continuity_core.schemas.usage import UsageReport

    types: dict[str, object] = {
        "checkpoint": Checkpoint,
        "session": Session,
        "config": GlobalConfig,
        "trap": Trap,
        "probes": ProbesFile,
        "brief": brief.Brief,
        "handoff": HandoffDoc,
        "usagereport": UsageReport,
    }
    try:
        from continuity_core.schemas import saved

        types.update(
            {
                name.lower(): t
                for name, t in vars(saved).items()
                if isinstance(t, type)
                and issubclass(t, msgspec.Struct)
                and t.__module__ == saved.__name__
                and name in saved.__all__
            }
        )
    except (ImportError, AttributeError):
        pass
    return types


def commands() -> list[tuple[str, click.Command]]:
    from continuity_cli.app import COMMANDS, cli

    out: list[tuple[str, click.Command]] = []
    ctx = click.Context(cli, info_name="baker")
    for name in COMMANDS:
        cmd = cli.get_command(ctx, name)
        if cmd is None:
            raise SystemExit(f"baker {name} is in COMMANDS but does not load")
        out.append((f"baker {name}", cmd))
        if isinstance(cmd, click.Group):
            sub_ctx = click.Context(cmd, info_name=name, parent=ctx)
            for sub in cmd.list_commands(sub_ctx):
                sub_cmd = cmd.get_command(sub_ctx, sub)
                if sub_cmd is None:
                    raise SystemExit(f"baker {name} lists {sub} but does not load it")
                out.append((f"baker {name} {sub}", sub_cmd))
    return out


def help_text(path: str, cmd: click.Command) -> str:
    ctx = click.Context(cmd, info_name=path, terminal_width=WIDTH, max_content_width=WIDTH)
    return cmd.get_help(ctx)


def reference() -> str:
    from continuity_cli.app import cli

    parts = [
        "# Command reference",
        "",
        "Generated from `baker --help` by `scripts/docs.py`; the test suite fails when it "
        "drifts from the code.",
        "",
        "```text",
        help_text("baker", cli),
        "```",
        "",
    ]
    for path, cmd in commands():
        parts += [f"## `{path}`", "", "```text", help_text(path, cmd), "```", ""]
    return "\n".join(parts)


def readme_list() -> str:
    rows = ["| command | what it does |", "|---|---|"]
    for path, cmd in commands():
        internal = " Internal: not listed by `baker --help`." if cmd.hidden else ""
        rows.append(f"| `{path}` | {cmd.get_short_help_str(limit=200)}{internal} |")
    return "\n".join(rows)


def expected() -> dict[Path, str]:
    files = {REFERENCE: reference()}
    for name, type_ in persisted().items():
        schema = msgspec.json.schema(type_)
        files[SCHEMAS / f"{name}.schema.json"] = (
            msgspec.json.format(msgspec.json.encode(schema), indent=2).decode() + "\n"
        )
    text = README.read_text()
    files[README] = re.sub(
        r"(<!-- commands:begin[^\n]*-->\n).*?(<!-- commands:end -->)",
        lambda m: m.group(1) + readme_list() + "\n" + m.group(2),
        text,
        flags=re.S,
    )
    return files


def main() -> int:
    check = "--check" in sys.argv
    stale = []
    for path, text in expected().items():
        current = path.read_text() if path.exists() else None
        if current != text:
            stale.append(path.relative_to(ROOT))
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if check and stale:
        print("out of date (run `python scripts/docs.py`): " + ", ".join(map(str, stale)))
        return 1
    print("docs up to date" if not stale else "wrote " + ", ".join(map(str, stale)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
