"""Putting text on the clipboard: the platform's tool, else OSC 52 to the terminal."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys

# Each tool, and the variable that must be set for it to reach a clipboard.
TOOLS = (
    (("pbcopy",), None),
    (("wl-copy",), "WAYLAND_DISPLAY"),
    (("xclip", "-selection", "clipboard"), "DISPLAY"),
    (("xsel", "--clipboard", "--input"), "DISPLAY"),
    (("clip.exe",), None),
)


def copy_text(text: str) -> tuple[bool, str]:
    """Copy `text`; (copied, a line saying how, or why it could not)."""
    for argv, needs in TOOLS:
        if needs and not os.environ.get(needs):
            continue
        exe = shutil.which(argv[0])
        if exe is None:
            continue
        try:
            subprocess.run([exe, *argv[1:]], input=text.encode(), check=True, timeout=5)
        except (OSError, subprocess.SubprocessError):
            continue
        return True, f"Brief copied to the clipboard with {argv[0]} ({len(text)} characters)."
    if sys.stderr.isatty():
        payload = base64.b64encode(text.encode()).decode()
        sys.stderr.flush()  # baker's own sequence: to the descriptor, past the boundary
        os.write(sys.stderr.fileno(), f"\033]52;c;{payload}\a".encode())
        return True, "Brief sent to the terminal clipboard (OSC 52); paste to check it arrived."
    return False, (
        "No clipboard available (no pbcopy, wl-copy, xclip, xsel or clip.exe, and "
        "not a terminal): the brief is printed on stdout instead."
    )
