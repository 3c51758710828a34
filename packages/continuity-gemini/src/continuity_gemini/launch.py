"""How `baker resume gemini` starts Gemini CLI with the brief as its first turn."""

from __future__ import annotations

from pathlib import Path

from continuity_core.adapters import INLINE_PROMPT_MAX, LaunchOptions, LaunchSpec, brief_text
from continuity_gemini.discovery import HOME_ENV, cli_home

FILE_PROMPT = (
    "Read the handoff brief in {path} before anything else; it is too long to paste here. "
    "Then follow its First move section."
)


def launch(project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
    """Interactive `gemini -i PROMPT`: the brief inline when small, else a pointer to its file."""
    notes: list[str] = []
    text = brief_text(brief, options)
    argv = ["gemini"]
    if options.native is not None:
        argv += ["--resume", options.native.session_id]
        notes.append("Gemini CLI's session retention can delete a resumed session's files; "
                     "`baker doctor` says whether it is on")
    if text is not None and text.strip() and len(text.encode()) < INLINE_PROMPT_MAX:
        prompt = text
    else:
        prompt = FILE_PROMPT.format(path=brief)
        notes.append(f"the brief is passed as a file: {brief}")
        if not brief.absolute().is_relative_to(project.absolute()):
            # read_file only reads inside the workspace's directories.
            argv += ["--include-directories", str(brief.absolute().parent)]
    env: dict[str, str] = {}
    if options.account is not None:
        home = cli_home(options.account)
        if home is not None:
            env[HOME_ENV] = home
        else:
            notes.append(f"{options.account.dir} is not named .gemini, so GEMINI_CLI_HOME cannot "
                         "select it; starting with the default account")
    argv += ["-i", prompt]
    return LaunchSpec(argv=argv, env=env, cwd=str(project), notes=notes)
