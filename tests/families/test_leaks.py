"""A hidden file shown to the agent in another form is found; small or different files are not."""

from __future__ import annotations

import json

from assay.families._leaks import hidden_copies, hidden_copies_rewritten
from assay.tasks import Task, TaskSpec

EXPECTED = {"queues": {"jobs": ["a", "b"]}, "buckets": {"in": {"x.csv": "1,2,3"}}}
TOML = b'[[reachability]]\nfrom = "web/*"\nto = "data/db-0"\nport = 5432\nallowed = false\n'
SQL = (
    b"-- data\nCREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);\n"
    b"INSERT INTO t VALUES (1, 'a');\n"
)


def task(workspace: dict[str, bytes], *, solutions: dict[str, bytes] | None = None) -> Task:
    return Task(
        spec=TaskSpec(id="t", family="config"),
        prompt="p",
        workspace=workspace,
        hidden={
            "expected.json": json.dumps(EXPECTED, indent=2).encode(),
            "expected.toml": TOML,
            "databases/n01.sql": SQL,
        },
        solutions={"reference": solutions or {"a.yaml": b"kind: x\n"}},
    )


def test_copies_in_other_forms_are_found() -> None:
    shown = task(
        {
            "snapshot.json": json.dumps(EXPECTED, separators=(",", ":"), sort_keys=True).encode(),
            "review.toml": b"[[reachability]]\nallowed = false\nport = 5432\n"
            b'to = "data/db-0"\nfrom = "web/*"\n',
            "backup.sql": b"-- a backup\n" + SQL.replace(b"\n", b"\n\n"),
        }
    )
    assert sorted(hidden_copies_rewritten(shown)) == [
        ("backup.sql", "hidden/databases/n01.sql"),
        ("review.toml", "hidden/expected.toml"),
        ("snapshot.json", "hidden/expected.json"),
    ]


def test_a_byte_copy_is_a_copy_but_not_rewritten() -> None:
    shown = task({"same.toml": TOML})
    assert list(hidden_copies(shown)) == [("same.toml", "hidden/expected.toml")]
    assert list(hidden_copies_rewritten(shown)) == []


def test_small_and_different_files_are_not_copies() -> None:
    assert list(hidden_copies(task({"x.json": b"{}", "y.sql": SQL.replace(b"'a'", b"'b'")}))) == []


def test_a_solution_shown_is_found_when_asked() -> None:
    query = b"SELECT name, COUNT(*) AS n FROM orders GROUP BY name ORDER BY n DESC;\n"
    shown = task({"notes.sql": query.replace(b" FROM", b"\nFROM")}, solutions={"query.sql": query})
    assert list(hidden_copies_rewritten(shown)) == []
    assert list(hidden_copies_rewritten(shown, solutions=True)) == [
        ("notes.sql", "solutions/reference/query.sql")
    ]
