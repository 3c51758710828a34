"""The command reference, the JSON Schemas and the README's command list match the code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_generated_docs_are_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "docs.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_links_resolve() -> None:
    import re

    text = (ROOT / "README.md").read_text()
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def _quoted_baker_commands(text: str) -> list[str]:
    """Every `baker …` in an inline code span, and every `baker …` line of a shell block."""
    import re

    found = []
    blocks = re.findall(r"^```(?:sh|bash|console)\n(.*?)^```", text, re.S | re.M)
    for block in blocks:
        found += [line.strip() for line in block.splitlines() if line.strip().startswith("baker ")]
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for span in re.findall(r"`([^`]+)`", prose):
        words = " ".join(span.split())
        if words.startswith("baker "):
            found.append(words)
    return found


def _check_baker_command(line: str) -> str | None:
    """Why `line` does not name a real `baker` command, subcommand and options; None if it does."""
    import shlex

    import click

    from continuity_cli.app import COMMANDS, cli

    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        words = line.split()
    args: list[str] = []
    for word in words[1:]:
        if word in ("|", "||", "&&", ";", "<", ">", ">>", "2>&1") or word.startswith(("<", ">")):
            break
        args.append(word)
    if not args or args[0] in ("--help", "-h", "--version"):
        return None
    if args[0] not in COMMANDS:
        return f"no command `baker {args[0]}`"
    ctx = click.Context(cli, info_name="baker")
    command = cli.get_command(ctx, args[0])
    assert command is not None
    rest = args[1:]
    if isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.get_command(click.Context(command, info_name=args[0], parent=ctx), rest[0])
        if sub is None:
            return f"no subcommand `baker {args[0]} {rest[0]}`"
        command, rest = sub, rest[1:]
    # get_params: with the options the installed adapters declare (`baker global sync --trust`)
    params = command.get_params(click.Context(command, info_name=args[0], parent=ctx))
    known = {opt for p in params for opt in (*p.opts, *p.secondary_opts)}
    known |= {"--help", "-h"}
    for word in rest:
        if word == "--":  # the end of baker's options: the rest is passed on (`baker run`)
            break
        if word.startswith("-") and word != "-" and word.split("=", 1)[0] not in known:
            return f"`{word}` is not an option of `baker {command.name}`"
    return None


def test_every_quoted_baker_command_exists() -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    problems = []
    seen = 0
    for path in docs:
        for line in _quoted_baker_commands(path.read_text()):
            seen += 1
            why = _check_baker_command(line)
            if why:
                problems.append(f"{path.relative_to(ROOT)}: `{line}`: {why}")
    assert seen > 50, "the docs quote almost no baker commands: is the parser broken?"
    assert not problems, "\n".join(problems)


def test_the_drift_check_catches_a_wrong_command() -> None:
    assert _check_baker_command("baker handoff --from codex --json") is None
    assert _check_baker_command("baker trap add --command 'pytest -x*' 'hangs'") is None
    assert _check_baker_command("baker checkpoint --agent claude --quiet < Stop.json") is None
    assert _check_baker_command("baker resum codex") == "no command `baker resum`"
    assert _check_baker_command("baker trap remove abc") == "no subcommand `baker trap remove`"
    assert (
        _check_baker_command("baker doctor --fix") == "`--fix` is not an option of `baker doctor`"
    )


def test_links_between_docs_resolve() -> None:
    import re

    pages = [
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted(ROOT.glob("packages/*/README.md")),
        ROOT / "CHANGELOG.md",
    ]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, "\n".join(broken)
