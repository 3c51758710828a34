"""How `baker resume gemini` starts Gemini CLI with the brief as its first turn."""

from __future__ import annotations

from pathlib import Path

from continuity_core.adapters import LaunchOptions, LaunchSpec, kit
from continuity_gemini.discovery import HOME_ENV, cli_home


def launch(project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
    """Interactive `gemini -i PROMPT`: the brief inline when small, else a pointer to its file."""
    notes: list[str] = []
    argv = ["gemini"]
    if options.native is not None:
        argv += ["--resume", options.native.session_id]
        notes.append(
            "Gemini CLI's session retention can delete a resumed session's files; "
            "`baker doctor` says whether it is on"
        )
    prompt, note = kit.brief_prompt(brief, options, "Gemini CLI")
    notes.append(note)
    if not prompt.whole and not brief.absolute().is_relative_to(project.absolute()):
        # read_file only reads inside the workspace's directories.
        argv += ["--include-directories", str(brief.absolute().parent)]
    env: dict[str, str] = {}
    if options.account is not None:
        home = cli_home(options.account)
        if home is not None:
            env[HOME_ENV] = home
        else:
            notes.append(
                f"{options.account.dir} is not named .gemini, so GEMINI_CLI_HOME cannot "
                "select it; starting with the default account"
            )
    argv += ["-i", prompt.text]
    return LaunchSpec(argv=argv, env=env, cwd=str(project), notes=notes)
