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


def _pages() -> list[Path]:
    """Every page a user reads: docs/, the README, the CHANGELOG and the packages' READMEs."""
    return [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted(ROOT.glob("packages/*/README.md")),
    ]


def _markdown_problems(page: Path, text: str) -> list[str]:
    """What renders wrong in `text` as a CommonMark renderer reads it: a code fence that is
    never closed (the rest of the page becomes one code block), a relative link to a file that
    does not exist, a heading that appears twice in one section (`### Added` under each
    release is fine), a run-in heading (a paragraph that opens with `**Delivery.**`) twice in
    one section or glued to the paragraph above it."""
    from urllib.parse import unquote

    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    lines = text.splitlines()
    problems: list[str] = []
    seen: dict[tuple[str, ...], int] = {}
    run_in: dict[tuple[str, ...], int] = {}  # a paragraph opening with **Title.**
    parents: list[tuple[int, str]] = []  # the enclosing headings: (level, title)
    for i, token in enumerate(tokens):
        line = token.map[0] + 1 if token.map else 0
        if token.type == "fence" and token.map is not None:
            # An unclosed fence runs to the end of the document: its last line is no fence.
            last = token.map[1] - 1
            closing = lines[last].strip() if token.map[1] - token.map[0] > 1 else ""
            fence = token.markup
            if not (closing.startswith(fence) and not closing.strip(fence[0])):
                problems.append(f"line {line}: code fence {fence} is never closed")
        elif token.type == "heading_open":
            level, title = int(token.tag[1:]), tokens[i + 1].content.strip()
            parents = [p for p in parents if p[0] < level]
            key = (*(t for _, t in parents), token.tag, title)
            if key in seen:
                problems.append(f"line {line}: heading `{title}` already at line {seen[key]}")
            seen.setdefault(key, line)
            parents.append((level, title))
        elif token.type == "paragraph_open" and tokens[i - 1].type != "list_item_open":
            children = [c for c in tokens[i + 1].children or [] if c.type != "text" or c.content]
            for j, child in enumerate(children[:-1]):
                title = children[j + 1].content.strip()
                if child.type != "strong_open" or not title.endswith("."):
                    continue
                at = line + sum(c.type in ("softbreak", "hardbreak") for c in children[:j])
                if j and children[j - 1].type == "softbreak":
                    problems.append(
                        f"line {at}: run-in heading **{title}** has no blank line before it: "
                        "it renders inside the paragraph above"
                    )
                elif j:
                    continue
                key = (*(t for _, t in parents), title)
                if key in run_in:
                    problems.append(
                        f"line {at}: run-in heading **{title}** already at line {run_in[key]}"
                    )
                run_in.setdefault(key, at)
        if token.type == "inline":
            for child in token.children or []:
                if child.type != "link_open":
                    continue
                href = str(child.attrs.get("href", ""))
                target = href.split("#", 1)[0]
                if not target or "://" in target or target.startswith("mailto:"):
                    continue
                if not (page.parent / unquote(target)).exists():
                    problems.append(f"line {line}: link to {href} finds no file")
    return problems


def test_every_page_renders_as_written() -> None:
    problems = []
    for page in _pages():
        for problem in _markdown_problems(page, page.read_text()):
            problems.append(f"{page.relative_to(ROOT)}: {problem}")
    assert not problems, "\n".join(problems)


def test_the_markdown_check_catches_what_renders_wrong(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# There\n")
    good = "# Title\n\n## A\n\n```toml\nx = 1\n```\n\nSee [there](there.md#there).\n\n## B\n"
    assert _markdown_problems(page, good) == []
    assert _markdown_problems(page, "# T\n\n```toml\nx = 1\n\n## After\n") == [
        "line 3: code fence ``` is never closed"
    ]
    assert _markdown_problems(page, "# T\n\n## A\n\ntext\n\n## A\n") == [
        "line 7: heading `A` already at line 3"
    ]
    assert _markdown_problems(page, "# T\n\nSee [gone](gone.md).\n") == [
        "line 3: link to gone.md finds no file"
    ]
    # `### Added` under each release is one heading per section, not a duplicate
    assert _markdown_problems(page, "# T\n\n## 1\n\n### Added\n\n## 2\n\n### Added\n") == []
    twice = "# T\n\n**Delivery.** By file.\n\n**Delivery.** Inline.\n"
    assert _markdown_problems(page, twice) == [
        "line 5: run-in heading **Delivery.** already at line 3"
    ]
    glued = "# T\n\nThe fields.\n**Delivery.** Inline.\n"
    assert _markdown_problems(page, glued) == [
        "line 4: run-in heading **Delivery.** has no blank line before it: it renders inside "
        "the paragraph above"
    ]
