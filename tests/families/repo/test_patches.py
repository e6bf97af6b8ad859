"""Unified diffs applied on the host: round trips, and one clear line for every bad patch."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.families.repo.patches import PatchError, apply_patch, make_patch, parse_patch
from assay.tasks.model import Files

PROJECT: Files = {
    "pkg/__init__.py": b"",
    "pkg/money.py": b"".join(f"line {i}\n".encode() for i in range(1, 41)),
    "README.md": b"# pkg\n",
}


def test_a_made_patch_applies_back() -> None:
    changed = dict(PROJECT)
    changed["pkg/money.py"] = PROJECT["pkg/money.py"].replace(b"line 3\n", b"line three\n")
    changed["pkg/money.py"] = changed["pkg/money.py"].replace(b"line 30\n", b"")
    changed["pkg/new.py"] = b"x = 1"  # no newline at the end
    del changed["README.md"]
    patch = make_patch(PROJECT, changed)
    assert "\\ No newline at end of file" in patch
    assert apply_patch(PROJECT, patch) == changed


def test_hunks_apply_where_the_lines_moved() -> None:
    changed = dict(PROJECT)
    changed["pkg/money.py"] = PROJECT["pkg/money.py"].replace(b"line 20\n", b"line twenty\n")
    patch = make_patch(PROJECT, changed)
    moved = {**PROJECT, "pkg/money.py": b"header\nheader\n" + PROJECT["pkg/money.py"]}
    applied = apply_patch(moved, patch)
    assert applied["pkg/money.py"] == b"header\nheader\n" + changed["pkg/money.py"]


def test_git_style_headers_are_read() -> None:
    patch = (
        "diff --git a/README.md b/README.md\nindex 1..2 100644\n"
        "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# pkg\n+# pkg 2\n"
    )
    assert apply_patch(PROJECT, patch)["README.md"] == b"# pkg 2\n"


@pytest.mark.parametrize(
    ("patch", "says"),
    [
        ("just some text\n", "holds no unified diff"),
        ("--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-x\n+y\n", "leaves"),
        ("--- /dev/null\n+++ b//etc/cron.d/x\n@@ -0,0 +1 @@\n+y\n", "absolute"),
        ("diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n", "symbolic link"),
        ("--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# other\n+# pkg 2\n", "hunk 1"),
        ("--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n-# pkg\n", "ends early"),
        ("--- a/gone.py\n+++ b/gone.py\n@@ -1 +1 @@\n-x\n+y\n", "does not exist"),
        ("--- /dev/null\n+++ b/README.md\n@@ -0,0 +1 @@\n+again\n", "exists already"),
        ("--- a/README.md\n+++ b/README.md\n@@ -x +1 @@\n", "malformed hunk header"),
    ],
)
def test_a_bad_patch_is_one_line_naming_the_file_and_the_fix(patch: str, says: str) -> None:
    with pytest.raises(PatchError) as caught:
        apply_patch(PROJECT, patch, "attempt.patch")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("attempt.patch: ")
    assert says in message
    assert "diff" in message  # the fix: how to make a patch that applies


def test_a_mismatch_names_the_project_file_and_line() -> None:
    patch = "--- a/pkg/money.py\n+++ b/pkg/money.py\n@@ -12 +12 @@\n-line 99\n+x\n"
    with pytest.raises(PatchError, match=r"hunk 1 of pkg/money\.py .* line 12 .*'line 12'"):
        apply_patch(PROJECT, patch)


def test_parse_counts_files() -> None:
    patch = make_patch(PROJECT, {**PROJECT, "a.py": b"1\n", "README.md": b"# x\n"})
    assert [p.path for p in parse_patch(patch)] == ["README.md", "a.py"]


_TEXT = st.lists(st.sampled_from(["a", "b", "c", "", "  d"]), max_size=12).map(
    lambda lines: "".join(f"{line}\n" for line in lines).encode()
)


@given(before=_TEXT, after=_TEXT)
def test_any_change_round_trips(before: bytes, after: bytes) -> None:
    old = {"f.py": before}
    new = {"f.py": after}
    patch = make_patch(old, new)
    result = apply_patch(old, patch) if patch else old
    assert result.get("f.py", b"") == after or (not after and "f.py" not in result)
