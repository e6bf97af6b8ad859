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
        # A part git or diff cannot write as text was left out, and the rest judged as if it
        # were the whole change.
        (
            "diff -ruN a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n",
            "binary",
        ),
        ("diff --git a/d.db b/d.db\nindex 1..2 100644\nGIT binary patch\nliteral 1\nx\n", "binary"),
        ("diff --git a/README.md b/R.md\ncopy from README.md\ncopy to R.md\n", "copies"),
        (
            "diff --git a/README.md b/pkg/__init__.py\n"
            "rename from README.md\nrename to pkg/__init__.py\n",
            "exists",
        ),
        # A line number Python will not read (past 4,300 digits) is no hunk header.
        (f"--- a/README.md\n+++ b/README.md\n@@ -{'1' * 5000} +1 @@\n-# pkg\n+# x\n", "malformed"),
        (f"--- a/README.md\n+++ b/README.md\n@@ -1,{'9' * 5000} +1 @@\n-# pkg\n", "malformed"),
        ("--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n", "names no file"),
        # A project with a file where a directory should be cannot be written for a run.
        ("--- /dev/null\n+++ b/README.md/x.py\n@@ -0,0 +1 @@\n+x\n", "which is a file"),
        ("diff --git a/README.md b/pkg\nrename from README.md\nrename to pkg\n", "which is a file"),
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


# What git writes for a module renamed unchanged, an empty file created (a package's
# __init__.py) and an empty file deleted: extended headers, and no ---/+++ lines.
_GIT_ONLY_HEADERS = (
    "diff --git a/pkg/money.py b/pkg/amounts.py\nsimilarity index 100%\n"
    "rename from pkg/money.py\nrename to pkg/amounts.py\n"
    "diff --git a/pkg/sub/__init__.py b/pkg/sub/__init__.py\nnew file mode 100644\n"
    "index 0000000..e69de29\n"
    "diff --git a/pkg/__init__.py b/pkg/__init__.py\ndeleted file mode 100644\n"
    "index e69de29..0000000\n"
    "diff --git a/README.md b/README.md\nindex 1..2 100644\n"
    "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# pkg\n+# pkg 2\n"
    "diff --git a/pkg/__pycache__/m.cpython-312.pyc b/pkg/__pycache__/m.cpython-312.pyc\n"
    "Binary files a/pkg/__pycache__/m.cpython-312.pyc and b/pkg/__pycache__/m.cpython-312.pyc"
    " differ\n"
)


def test_a_git_diff_renames_creates_and_deletes_files_it_writes_without_hunks() -> None:
    assert apply_patch(PROJECT, _GIT_ONLY_HEADERS) == {
        "pkg/amounts.py": PROJECT["pkg/money.py"],
        "pkg/sub/__init__.py": b"",
        "README.md": b"# pkg 2\n",
    }


def test_a_made_patch_makes_and_deletes_empty_files() -> None:
    changed = {**PROJECT, "pkg/sub/__init__.py": b""}
    del changed["pkg/__init__.py"]
    assert apply_patch(PROJECT, make_patch(PROJECT, changed)) == changed


def test_a_mismatch_names_the_project_file_and_line() -> None:
    patch = "--- a/pkg/money.py\n+++ b/pkg/money.py\n@@ -12 +12 @@\n-line 99\n+x\n"
    with pytest.raises(PatchError, match=r"hunk 1 of pkg/money\.py .* line 12 .*'line 12'"):
        apply_patch(PROJECT, patch)


def test_parse_counts_files() -> None:
    patch = make_patch(PROJECT, {**PROJECT, "a.py": b"1\n", "README.md": b"# x\n"})
    assert [p.path for p in parse_patch(patch)] == ["README.md", "a.py"]


_TEXT = st.lists(
    st.sampled_from(["a", "b", "c", "", "  d", "e\r", "\x0c", "f\u2028g", "h\x85"]), max_size=12
).map(lambda lines: "".join(f"{line}\n" for line in lines).encode())


# What GNU diff writes for a file with CRLF line ends and one with a form feed (as Python files
# of Emacs users have): each line ends at its \n, a \r or \x0c stays inside it.
_CRLF_DIFF = (
    "--- a/crlf.py\n+++ b/crlf.py\n@@ -1,3 +1,3 @@\n x = 1\r\n-y = 2\r\n+y = 5\r\n z = 3\r\n"
    "--- a/page.py\n+++ b/page.py\n@@ -1,3 +1,3 @@\n page = 1\n \x0c\n-q = 2\n+q = 3\n"
)


def test_a_diff_of_lines_holding_a_carriage_return_or_a_form_feed_applies() -> None:
    project = {"crlf.py": b"x = 1\r\ny = 2\r\nz = 3\r\n", "page.py": b"page = 1\n\x0c\nq = 2\n"}
    assert apply_patch(project, _CRLF_DIFF) == {
        "crlf.py": b"x = 1\r\ny = 5\r\nz = 3\r\n",
        "page.py": b"page = 1\n\x0c\nq = 3\n",
    }


def test_a_patch_saved_with_crlf_line_ends_applies_to_a_project_without() -> None:
    changed = {**PROJECT, "pkg/money.py": PROJECT["pkg/money.py"].replace(b"line 3\n", b"3\n")}
    patch = make_patch(PROJECT, changed).replace("\n", "\r\n")
    assert apply_patch(PROJECT, patch) == changed


@given(before=_TEXT, after=_TEXT)
def test_any_change_round_trips(before: bytes, after: bytes) -> None:
    old = {"f.py": before}
    new = {"f.py": after}
    patch = make_patch(old, new)
    result = apply_patch(old, patch) if patch else old
    assert result.get("f.py", b"") == after or (not after and "f.py" not in result)


DIFF_RN = """\
diff -ruN workspace/pkg/emptied.py changed/pkg/emptied.py
--- workspace/pkg/emptied.py\t2026-12-07 13:29:37.655936394 +0000
+++ changed/pkg/emptied.py\t2026-12-07 13:29:37.655936394 +0000
@@ -1 +0,0 @@
-keep
diff -ruN workspace/pkg/gone.py changed/pkg/gone.py
--- workspace/pkg/gone.py\t2026-12-07 08:29:37.655936394 -0500
+++ changed/pkg/gone.py\t1969-12-31 19:00:00.000000000 -0500
@@ -1 +0,0 @@
-old
diff -ruN workspace/pkg/money.py changed/pkg/money.py
--- workspace/pkg/money.py\t2026-12-07 13:29:37.655936394 +0000
+++ changed/pkg/money.py\t2026-12-07 13:29:37.655936394 +0000
@@ -1,2 +1,2 @@
 line 1
-line 2
+line two
diff -ruN workspace/pkg/new.py changed/pkg/new.py
--- workspace/pkg/new.py\t1970-01-01 00:00:00.000000000 +0000
+++ changed/pkg/new.py\t2026-12-07 13:29:37.655936394 +0000
@@ -0,0 +1 @@
+new
"""
"""What ``diff -ruN workspace/ changed/`` writes (the way every patch error advises): the two
copies' names on the paths, a created file dated at the epoch on its old side and a deleted one
on its new side (here in a zone west of UTC)."""


def test_a_diff_of_two_copies_of_the_project_applies_as_patch_p1_takes_it() -> None:
    project = {**PROJECT, "pkg/gone.py": b"old\n", "pkg/emptied.py": b"keep\n"}
    applied = apply_patch(project, DIFF_RN)
    assert applied == {
        **PROJECT,
        "pkg/money.py": PROJECT["pkg/money.py"].replace(b"line 2\n", b"line two\n"),
        "pkg/emptied.py": b"",  # emptied, not deleted: its new side has a date of its own
        "pkg/new.py": b"new\n",
    }


def test_copy_names_are_kept_where_the_project_has_such_a_directory() -> None:
    """A project whose own top directory is named like the old copy is patched as it reads."""
    project = {"workspace/pkg/m.py": b"a\n"}
    patch = "--- workspace/pkg/m.py\n+++ changed/pkg/m.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert apply_patch(project, patch) == {"changed/pkg/m.py": b"b\n"}


def test_a_change_to_the_projects_dotfiles_round_trips() -> None:
    """A project's ``.gitignore`` or ``.github/`` is changed by diffs too; the project's own
    patch of such a change (a single-turn reference's answer) once did not apply."""
    old = {**PROJECT, ".gitignore": b"build/\n", ".github/ci.yml": b"on: push\n"}
    new = {**old, ".gitignore": b"build/\ndist/\n", ".github/ci.yml": b"on: [push]\n"}
    assert apply_patch(old, make_patch(old, new)) == new


@pytest.mark.parametrize("path", ["...", "./pkg/money.py", "pkg/./money.py", ".../x", "a//b"])
def test_a_path_of_dots_alone_is_still_refused(path: str) -> None:
    patch = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"
    with pytest.raises(PatchError, match="bad file name"):
        apply_patch(PROJECT, patch)
