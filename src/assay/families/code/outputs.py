"""What the candidate did on each case, read from the harness's records in hostile output.

The candidate runs in the harness's process, so it can read the harness's nonce and print records
of its own: no record can be authenticated. The defence is that a record can only say what the
candidate could also have made true honestly. A value record carries a value the function could
have returned, an exception record the names of builtin exceptions it could have raised. What a
forger could still gain is to stand in for a call: print a record for a case before the harness
calls it (the first record used to win), then crash or stall in the real call. So the records
must follow the job exactly: at most one ``import_error`` record and nothing after it, or one
record per case in the job's order. A record that breaks that order, repeats a case, names an
unknown case, or does not follow the schema means the output was tampered with, and every case
fails. A run that forges its records in order and then exits gets exactly what it would have got
by returning the same values from the calls, which it could always do.

Everything here is bounded (see :mod:`assay.families.code.records`) and nothing raises: any
surprise becomes a failed case with the reason as evidence.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from dataclasses import dataclass, replace

from assay.families.code._codec import EncodingError, normalize
from assay.families.code.records import MAX_DEPTH, NotPlainError, parse_plain
from assay.sandbox.protocol import ExecResult

MAX_TEXT = 500
"""Longest error text or type name kept from a record."""
MAX_POSITIONS = 256
"""Most argument positions a ``changed`` field may name; far more than any task's call has."""


@dataclass(frozen=True)
class Returned:
    """The call returned this plain value."""

    value: object
    changed: tuple[int, ...] = ()
    """Positions of the arguments the call left other than they were (``code.inputs``)."""
    shared: bool = False
    """Whether the value holds a list, dict or set that is part of an argument."""


@dataclass(frozen=True)
class Raised:
    """The call raised an exception, reported by name."""

    type_name: str
    """The raised class's own name, for evidence only."""
    builtins: tuple[str, ...]
    """Names of the builtin exception classes it derives from, as the harness reported them."""
    message: str
    """The exception as ``traceback`` prints its last line."""
    changed: tuple[int, ...] = ()
    """Positions of the arguments the call left other than they were (``code.inputs``)."""


@dataclass(frozen=True)
class Refused:
    """The call returned something that is not plain data within the bounds."""

    reason: str


Outcome = Returned | Raised | Refused


@dataclass(frozen=True)
class CaseOutputs:
    """What the candidate did on each case, as decoded by the trusted process."""

    outcomes: dict[str, Outcome]
    """Case id to what the call did; a case that never reported is absent."""
    import_error: str | None
    """Why the solution could not be loaded, if it could not."""
    tampered: str | None
    """Why the records cannot be believed, if they cannot; every case then fails."""
    result: ExecResult
    """The sandbox run itself."""

    def missing_reason(self) -> str:
        """Why a case has no output at all."""
        if self.result.timed_out:
            return "no result: the run passed its time limit"
        if self.result.out_of_memory:
            return "no result: the run passed its memory limit"
        if self.result.cpu_exceeded or self.result.signal == signal.SIGXCPU:
            return "no result: the run passed its CPU-time limit"
        if self.result.stdout_truncated:
            return "no result: the run passed its output limit"
        if self.result.signal is not None:
            return f"no result: the process was killed by signal {self.result.signal}"
        return f"no result: the process ended with status {self.result.exit_code} before reporting"


class _TamperedError(ValueError):
    """A record that the honest harness would never have written."""


def decode_outputs(
    result: ExecResult, nonce: str, ids: Sequence[str], *, encoded: bool = False
) -> CaseOutputs:
    """Read the records of a run of the harness over cases ``ids``, in that order; with
    ``encoded``, values are encoded (case files of format 4) and read in canonical form."""
    lines = [line[len(nonce) :] for line in result.stdout.split("\n") if line.startswith(nonce)]
    outcomes: dict[str, Outcome] = {}
    import_error: str | None = None
    depth = 2 * MAX_DEPTH + 1 if encoded else MAX_DEPTH + 1
    for index, line in enumerate(lines):
        try:
            record = _record(parse_plain(line, max_depth=depth), encoded=encoded)
        except NotPlainError as exc:
            if index == len(lines) - 1 and result.stdout_truncated:
                break  # the output limit cut the last record short
            return _tampered(result, f"a record is not plain data: {exc}")
        except _TamperedError as exc:
            return _tampered(result, str(exc))
        if import_error is not None or (isinstance(record, str) and index > 0):
            return _tampered(result, "a record follows the end of the run")
        if isinstance(record, str):
            import_error = record
            continue
        case_id, outcome = record
        if index >= len(ids) or ids[index] != case_id:
            return _tampered(result, _misplaced(case_id, ids, outcomes))
        outcomes[case_id] = outcome
    return CaseOutputs(outcomes=outcomes, import_error=import_error, tampered=None, result=result)


def _misplaced(case_id: str, ids: Sequence[str], seen: dict[str, Outcome]) -> str:
    if case_id in seen:
        return f"case {case_id[:80]!r} has a second record"
    if case_id not in ids:
        return f"a record names no case of the job ({case_id[:80]!r})"
    return f"the record of case {case_id[:80]!r} comes out of order"


def _tampered(result: ExecResult, reason: str) -> CaseOutputs:
    return CaseOutputs(outcomes={}, import_error=None, tampered=reason, result=result)


def _record(data: object, *, encoded: bool) -> str | tuple[str, Outcome]:
    """An import error's text, or a case id and its outcome; raises :class:`_TamperedError`."""
    if not isinstance(data, dict):
        raise _TamperedError("a record is not an object")
    keys = set(data)
    if keys == {"import_error"}:
        return _text(data["import_error"])
    case_id = data.get("id")
    if not isinstance(case_id, str):
        raise _TamperedError("a record has no case id")
    changed = _positions(data.get("changed", []))
    keys -= {"changed"}
    if keys <= {"id", "value", "shared"} and "value" in keys:
        shared = data.get("shared", False) is True
        if "shared" in keys and not shared:
            raise _TamperedError('a record says "shared" other than true')
        if not encoded:
            return case_id, Returned(data["value"], changed, shared)
        try:
            return case_id, Returned(normalize(data["value"]), changed, shared)
        except EncodingError as exc:
            return case_id, Refused(f"not a valid encoded value: {exc}"[-MAX_TEXT:])
    if keys == {"id", "refused"} and not changed:
        return case_id, Refused(_text(data["refused"]))
    if keys == {"id", "raised", "error"}:
        raised = _raised(data["raised"], data["error"])
        return case_id, replace(raised, changed=changed)
    raise _TamperedError(f"a record has the fields {sorted(keys)[:6]}")


def _positions(data: object) -> tuple[int, ...]:
    """The argument positions of a ``changed`` field: distinct ints, ascending."""
    if (
        not isinstance(data, list)
        or len(data) > MAX_POSITIONS
        or any(type(item) is not int or not 0 <= item < MAX_POSITIONS for item in data)
        or data != sorted(set(data))
    ):
        raise _TamperedError('a record\'s "changed" is not a list of argument positions')
    return tuple(data)


def _raised(kind: object, error: object) -> Raised:
    if not isinstance(kind, dict) or set(kind) != {"type", "builtins"}:
        raise _TamperedError("an exception record is malformed")
    names = kind["builtins"]
    if not isinstance(names, list) or len(names) > 64:
        raise _TamperedError("an exception record is malformed")
    return Raised(
        type_name=_text(kind["type"]),
        builtins=tuple(_text(name) for name in names),
        message=_text(error),
    )


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise _TamperedError("a record holds a non-string where text belongs")
    return value[-MAX_TEXT:]
