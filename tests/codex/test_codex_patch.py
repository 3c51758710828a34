"""apply_patch parsing: which files a patch adds, updates, deletes and moves."""

from __future__ import annotations

import pytest

from continuity_codex.patch import PatchError, find_patch, parse

FULL = """*** Begin Patch
*** Add File: docs/new.md
+# New
+text
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
-    pass
+    run()
*** End of File
*** Delete File: old/legacy.py
*** Update File: src/util.py
@@
-a
+b
*** End Patch
"""


def test_every_kind_of_file_operation() -> None:
    assert parse(FULL) == [
        ("add", "docs/new.md", None),
        ("update", "src/app.py", "src/main.py"),
        ("delete", "old/legacy.py", None),
        ("update", "src/util.py", None),
    ]


def test_a_heredoc_sent_to_the_shell() -> None:
    command = "apply_patch <<'EOF'\n" + FULL + "EOF\n"
    assert find_patch(command) == FULL.rstrip("\n")
    assert [op[1] for op in parse(command)][:1] == ["docs/new.md"]


def test_paths_with_spaces_survive() -> None:
    text = "*** Begin Patch\n*** Update File: client work/a b.md\n@@\n-x\n+y\n*** End Patch"
    assert parse(text) == [("update", "client work/a b.md", None)]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "just some text",
        "*** Begin Patch\n*** Add File: a.py\n+x\n",  # never ends
        "*** Begin Patch\n*** End Patch",  # no files
        "*** Begin Patch\n*** Add File: \n*** End Patch",  # no path
        "*** Begin Patch\n*** Move to: b.py\n*** End Patch",  # a move outside an update
        "*** Begin Patch\n*** Add File: a.py\n*** Move to: b.py\n*** End Patch",
        "*** Begin Patch\n*** Frobnicate File: a.py\n*** End Patch",
        "*** Begin Patch\n+stray line\n*** Add File: a.py\n*** End Patch",
    ],
)
def test_malformed_patches_raise_patch_error(text: str) -> None:
    with pytest.raises(PatchError):
        parse(text)
    assert issubclass(PatchError, ValueError)
