"""The ``sql`` family: answer a question with one read-only query, judged by test-suite accuracy.

Task layout::

    task.toml                   [sql] engine, database, max_rows, time_limit_s, float_tolerance,
                                order, seed (:class:`SqlConfig`)
    prompt.md                   the question
    workspace/<database>.sql    the visible database, as SQL text (schema, then rows)
    hidden/databases/*.sql      neighbour databases: the same schema, rows made to tell queries
                                apart (:mod:`.neighbours`)
    solutions/reference/query.sql           a reference query
    solutions/reference-<reading>/query.sql one more per other reasonable reading of the question
    solutions/bad-<label>/query.sql         known-bad queries

A submission is ``query.sql``: exactly one read-only query (:mod:`.gate`). It runs in a sandbox
on engine files built from the text (:mod:`.databases`), opened read-only and locked down
(:mod:`._runner`); its results come back as bounded records (:mod:`.results`) and are compared in
the trusted process (:mod:`.compare`). It passes when, for some reference, its result matches that
reference's on every database of the suite.

Tasks are made by :mod:`.generator` (``assay generate sql``: question templates over four
schemas in :mod:`.templates`) and :mod:`.importers` (``assay import spider`` and ``assay import
bird``); both self-check each task in the sandbox. For the audit the family gives reward hacks
(:mod:`.exploits`) and mutants of the reference (:mod:`.mutants`).
"""

from assay.families.sql.config import SqlConfig
from assay.families.sql.family import SqlFamily, run_queries

__all__ = ["SqlConfig", "SqlFamily", "run_queries"]
