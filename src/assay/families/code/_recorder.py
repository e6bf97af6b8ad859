"""The harness that turns a benchmark's check into cases. Stdlib only; ``python -I -S -c``, the
codec's source (:mod:`assay.families.code._codec`) in front of this one.

It runs in the sandbox: the benchmark's reference and check are task code, never run in the
assay process. It reads a JSON job from stdin (``program``: the reference's source, ``test``: the
source defining ``check(candidate)``, ``entry_point``, ``max_calls``, a nonce, ``path``: the
directories of the packages they import besides the standard library), and:

1. runs ``check`` once against a *recording* candidate that calls the reference and records each
   call's arguments (encoded before the call) and its result or the builtin exception it raised
   (a check that also calls the function by its own name, as HumanEval/33 does and MBPP's setup
   code may, where the benchmark's harness gave the solution's function, stays legacy);
2. replays the check with a candidate that answers every call from the record, decoded afresh:
   the check must pass again, with the same calls (``random`` is seeded with 0 before each run);
3. probes each call: the check must reject a result that equals nothing, or else accept every plain
   value too and never compare, hash or print a result that notes being looked at (then it does
   not look at the call's result, and the call is left out and counted; a check that looks at it
   all the same, ``!= 10``, rejects a value no probe can guess and stays legacy; a check that
   accepts nothing-in-particular but rejects None, 0 or an empty value tests a property, ``is not
   None`` or ``!= 0``, and stays legacy; so does a check that takes, in place of the result,
   anything as true or as false as it: ``assert f(x)``, ``assert not f(x)``; and one that passes
   the result equal to nothing on to the function: ``f(f(x)) == x``). A raising call is kept when
   the check rejects a return instead, and left out only when it accepts any answer; its exception
   is raised as each of its builtin bases in turn, and as other common exceptions, and the case
   expects the broadest the check takes (``except Exception`` takes any) and every other it takes
   (``except (ValueError, TypeError)``: ``"ValueError|TypeError"``). A result must be told apart
   from a near miss of the same type (an int off by one, a string with one more character, a
   container with one item fewer; else the check inspects properties, not the value). Finite floats
   are moved by growing steps to find the tolerance the check allows, which must take a move of
   half of it too (``nan`` and ``inf`` match only themselves), and a zero's sign is turned (a check
   that tells -0.0 from 0.0 stays legacy: cases compare floats with ``==``); lists are reversed,
   and rotated, to learn whether their order matters (a check that takes the reverse but not a
   rotation wants one of two orders, which cases cannot say); and the call's list, dict and set
   arguments are changed in place after it, to learn whether the check looks at them again (cases
   pass fresh arguments, so that check would be lost); and each number in a result is given as
   another type of the same value (3.0 for 3, 1 for True, True for 1), to learn whether the check
   compares numbers by value, as ``==`` does (then so do the cases); and each list, tuple or set
   result is given as the other sequence type and as a collection that can only be iterated over,
   to learn whether the check converts it (``tuple(f(x))``: then the cases take any such
   collection, a set included; ``r[0]`` reads a position, which a set has not), and with an item
   repeated and its items rotated (``set(f(x))``: the cases take it as a set, in any order); a
   nonzero float so near zero that the cases' tolerance is a large part of it must be taken
   moved by half of it;
4. runs the check against an object equal to everything, to report how weak the check itself is.

It writes one ``<nonce><json>`` line: ``{"status": "cases", "calls": [...], "tolerance": t,
"unordered": bool, "containers": "typed" or "any", "as_set": bool, "unchecked": n, "numbers":
"typed" or "by-value", ...}`` (``unchecked``:
the calls left out), ``{"status": "legacy", "reason": text, ...}`` (the check cannot be turned
into cases faithfully) or ``{"status": "failed", "reason": text}`` (the reference fails
its own check, or nothing loads). The trusted side reads it as hostile data.
"""

import builtins
import inspect
import json
import math
import os
import random
import sys
import time
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up; the codec's source runs first
    from typing import Any

    from assay.families.code._codec import EncodingError, decode, encode

TOLERANCES = (1e-9, 1e-6, 1e-4, 1e-2)
"""Float tolerances cases can state, tightest first; 1e-9 is the judge's default."""


OTHER_EXCEPTIONS = (
    "ArithmeticError",
    "LookupError",
    "OSError",
    "RuntimeError",
    "ValueError",
    "TypeError",
    "AttributeError",
    "NameError",
    "ImportError",
    "AssertionError",
    "StopIteration",
    "EOFError",
    "ZeroDivisionError",
    "OverflowError",
    "KeyError",
    "IndexError",
    "FileNotFoundError",
    "NotImplementedError",
    "UnicodeError",
)
"""Exceptions tried in place of a raised one, to learn what else the check's ``except`` takes
(the general before their subclasses)."""


class _Mismatch(BaseException):
    """A replayed call that does not match the record."""


class _Legacy(Exception):  # noqa: N818 - the reason the check stays a legacy verifier
    """The check cannot be turned into cases faithfully."""


class _Nothing:
    """A result equal to nothing, usable for nothing."""

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError("no truth value")


class _Truth(_Nothing):
    """A result equal to nothing, true or false as told: a check that takes it in place of a
    result looks at the result's truth value only (``assert f(x)``, ``assert not f(x)``)."""

    def __init__(self, truth: bool) -> None:
        self.truth = truth

    def __bool__(self) -> bool:
        return self.truth


class _Watched(_Nothing):
    """A result equal to nothing that notes each time the check looks at it: compares it,
    hashes it, takes its truth value or turns it into text. A check that takes every plain
    value and this too, and never looks at it, ignores the result; one that looks at it
    tests what the result is not (``!= 10``), which no finite set of values can show."""

    def __init__(self, seen: "list[str]") -> None:
        self.seen = seen

    def __eq__(self, other: object) -> bool:
        self.seen.append("compares it with ==")
        return False

    def __ne__(self, other: object) -> bool:
        self.seen.append("compares it with !=")
        return True

    def __hash__(self) -> int:
        self.seen.append("hashes it")
        return object.__hash__(self)

    def __bool__(self) -> bool:
        self.seen.append("takes its truth value")
        raise TypeError("no truth value")

    def __repr__(self) -> str:
        self.seen.append("turns it into text")
        return object.__repr__(self)

    def __str__(self) -> str:
        self.seen.append("turns it into text")
        return object.__repr__(self)

    def __format__(self, spec: str) -> str:
        self.seen.append("turns it into text")
        return object.__repr__(self)


class _Anything:
    """A result equal to everything: the best-known hack of benchmark checks."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        return True


class _Iterable:
    """A collection that can be iterated over, measured and searched, and nothing else, as a
    set: a check that takes it in place of a result converts the result (``tuple(f(x))``,
    ``set(f(x))``); one that reads the result by position (``r[0]``) does not."""

    def __init__(self, items: "Any") -> None:
        self.items = list(items)

    def __iter__(self) -> "Any":
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, item: object) -> bool:
        return item in self.items


class _Call:
    def __init__(self, args: object) -> None:
        self.args = args
        self.value: object = None
        self.raises: str | None = None


def _main() -> None:
    job = json.loads(sys.stdin.buffer.read())
    out = os.dup(1)
    sys.stdout = sys.stderr
    record = _extract(job)
    line = "\n" + job["nonce"] + json.dumps(record) + "\n"
    os.write(out, line.encode())


def _extract(job: "dict[str, Any]") -> "dict[str, object]":
    deadline = time.monotonic() + job.get("probe_s", 40)  # the job ends at a wall-clock limit
    namespace: dict[str, Any] = {"__name__": "solution"}
    sys.path.extend(job.get("path", ()))  # the packages the reference or check imports
    try:
        exec(compile(job["program"] + "\n\n" + job["test"], "program.py", "exec"), namespace)  # noqa: S102 - sandboxed task code
    except BaseException as exc:  # noqa: BLE001 - the task's code may raise anything
        return {
            "status": "failed",
            "reason": "the reference and check do not load: " + _describe(exc),
        }
    for name, field in ((job["entry_point"], "entry_point"), ("check", "test")):
        if not callable(namespace.get(name)):
            given = type(namespace[name]).__name__ if name in namespace else "nothing"
            return {
                "status": "failed",
                "reason": f"the problem's {field} names {name!r}, which its code defines as "
                f"{given}, not a function",
            }
    function, check = namespace[job["entry_point"]], namespace["check"]
    try:
        calls = _record(check, function, job["max_calls"], (namespace, job["entry_point"]))
    except _Legacy as exc:
        return {"status": "legacy", "reason": str(exc), "always_equal": _fooled(check)}
    except BaseException as exc:  # noqa: BLE001 - the reference failed its own check
        return {
            "status": "failed",
            "reason": "the reference fails its own check: " + _describe(exc),
        }
    try:
        found = _Probes(check, function, calls, deadline).run()
    except _Legacy as exc:
        return {"status": "legacy", "reason": str(exc), "always_equal": _fooled(check)}
    found["always_equal"] = _fooled(check)
    return found


def _positional(
    function: "Any", args: "tuple[Any, ...]", kwargs: "dict[str, Any]"
) -> "tuple[Any, ...]":
    if not kwargs:
        return args
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except (TypeError, ValueError):
        raise _Legacy(
            "the check calls the function with keyword arguments it does not take"
        ) from None
    if bound.kwargs:
        raise _Legacy("the check passes keyword-only arguments, which cases cannot hold")
    return tuple(bound.args)


def _record(
    check: "Any", function: "Any", max_calls: int, named: "tuple[dict[str, Any], str]"
) -> "list[_Call]":
    """The calls ``check`` makes of ``function`` through its candidate. While it runs, the
    function's own name in the program (``named``: the namespace and the name, which a helper
    of the check or of MBPP's setup code may call, where the benchmark's harness gave the
    solution's function) answers too, but makes the check legacy: those calls bypass the
    candidate, and no case holds them. The function's calls of itself are its own."""
    calls: list[_Call] = []
    problems: list[str] = []
    namespace, name = named

    def by_name(*args: "Any", **kwargs: "Any") -> "Any":
        problems.append(
            f"the check calls {name} by its name, not only through candidate: those calls "
            "are not the candidate's"
        )
        return function(*args, **kwargs)

    watched = by_name if inspect.isfunction(function) else function  # isinstance takes a class

    def recording(*args: "Any", **kwargs: "Any") -> "Any":
        args = _positional(function, args, kwargs)
        try:
            call = _Call(_encoded(list(args)))
        except EncodingError as exc:
            problems.append(f"an argument cannot be encoded ({exc})")
            call = _Call(None)
        calls.append(call)
        namespace[name] = function
        try:
            result = function(*args)
        except Exception as exc:
            kind = type(exc).__name__
            if getattr(builtins, kind, None) is not type(exc):
                problems.append(f"the reference raises {kind}, not a builtin exception")
            call.raises = kind
            raise
        finally:
            namespace[name] = watched
        try:
            call.value = _encoded(result)
        except EncodingError as exc:
            problems.append(f"a result cannot be encoded ({exc})")
        return result

    random.seed(0)
    namespace[name] = watched
    try:
        check(recording)
    finally:
        namespace[name] = function
    if problems:
        raise _Legacy(problems[0])
    if not calls:
        raise _Legacy("the check never calls the function")
    if len(calls) > max_calls:
        raise _Legacy(f"the check makes {len(calls)} calls, more than {max_calls}")
    return calls


def _encoded(value: "Any") -> object:
    """``value`` encoded, as the record's JSON line can hold it; raises EncodingError for a
    value that holds itself or nests past the stack, and for an integer of more than 4300
    digits (which JSON text cannot be made of here, nor read back)."""
    try:
        data = encode(value)
        json.dumps(data)
    except RecursionError:
        raise EncodingError("$: it holds itself, or nests too deeply") from None
    except EncodingError:
        raise
    except ValueError:
        raise EncodingError("$: an integer has more than 4300 digits") from None
    return data


class _Probes:
    def __init__(
        self, check: "Any", function: "Any", calls: "list[_Call]", deadline: float
    ) -> None:
        self.check = check
        self.function = function
        self.calls = calls
        self.deadline = deadline
        """When probing gives up, and the check stays legacy: each probe replays every call,
        and a check of thousands of calls (EvalPlus's) would pass the job's time limit."""
        self.by_value: list[bool] = []
        """For each result with numbers: whether the check takes them retyped (3.0 for 3)."""

    def passes(
        self, probe: "int | None" = None, answer: "Any" = None, *, mutate: bool = False
    ) -> bool:
        """Whether the check passes on the recorded answers, call ``probe`` answering
        ``answer()`` instead (with ``mutate``: the recorded answer, its arguments changed in
        place); a replay whose calls stray from the record raises _Mismatch unless a probe
        caused it (the probe changed what the check does: a rejection, but for ``mutate``)."""
        if time.monotonic() > self.deadline:
            raise _Legacy(f"the check's {len(self.calls)} calls take too long to probe one by one")
        position = [0]
        calls = self.calls
        fed: list[int] = []  # the probed call, once its answer reached another call

        def replaying(*args: "Any", **kwargs: "Any") -> "Any":
            index = position[0]
            position[0] += 1
            args = _positional(self.function, args, kwargs)
            try:
                same = index < len(calls) and encode(list(args)) == calls[index].args
            except EncodingError:
                same = False
            if not same:
                if probe is not None and _holds_probe(args):
                    fed.append(probe)
                raise _Mismatch(f"call {index} of the replay is not the recorded one")
            if index == probe and mutate:
                for arg in args:
                    _change(arg)
                return decode(calls[index].value)
            if index == probe:
                return answer()
            raised = calls[index].raises
            if raised is not None:
                raise getattr(builtins, raised)("replayed")
            return decode(calls[index].value)

        random.seed(0)
        try:
            self.check(replaying)
        except _Mismatch:
            if probe is None:
                raise
            if not fed:
                # A changed argument that a later call shares (a setup table, say) strays the
                # replay: that is not the check looking at it; the later call's own probe is.
                return mutate
        except BaseException:  # noqa: BLE001 - any failure is the check rejecting the answers
            if not fed:
                return False
        if fed:  # however the check took the stray call (a bare except swallows it)
            raise _Legacy(
                f"the check passes call {fed[0] + 1}'s result to the function again (it "
                "judges results through other calls), which cases cannot say"
            )
        return True

    def run(self) -> "dict[str, object]":
        try:
            if not self.passes():
                raise _Legacy("the check fails when its calls are answered from the record")
        except _Mismatch:
            raise _Legacy("the check's calls differ between runs") from None
        kept: list[dict[str, object]] = []
        floats: list[int] = []
        reversible: list[bool] = []
        collections: list[int] = []
        for index, call in enumerate(self.calls):
            case = self._raising(index, call) if call.raises else self._returning(index, call)
            if case is None:
                continue  # the check never looks at this call
            kept.append(case)
            if call.raises:
                continue
            value: Any = decode(call.value)
            if _has_float(value):
                floats.append(index)
            if type(value) in (list, tuple) and len(value) > 1 and value[::-1] != value:
                reversible.append(self._reverses(index, value))
            if type(value) in (list, tuple, set, frozenset):
                collections.append(index)
        if not kept:
            raise _Legacy("the check never looks at the function's results")
        if any(reversible) and not all(reversible):
            raise _Legacy("the check ignores the order of some results but not of others")
        converted = bool(collections) and all(self._converts(i) for i in collections)
        return {
            "status": "cases",
            "calls": kept,
            "tolerance": self._tolerance(floats),
            "unordered": bool(reversible) and all(reversible),
            "containers": "any" if converted else "typed",
            "as_set": converted and self._as_set(collections),
            "unchecked": len(self.calls) - len(kept),
            "numbers": "by-value" if self.by_value and all(self.by_value) else "typed",
        }

    def _raising(self, index: int, call: "_Call") -> "dict[str, object] | None":
        if not self.passes(index, lambda: None):
            return {"args": call.args, "raises": self._broadest(index, str(call.raises))}
        if self._ignores(index):
            return None
        raise _Legacy(
            f"call {index + 1} raises {call.raises}, and the check accepts some returns "
            "instead: it tolerates the exception, which cases cannot say"
        )

    def _broadest(self, index: int, raised: str) -> str:
        """What the check's ``except`` takes from call ``index`` in place of ``raised``: the
        most general of its builtin bases (``except Exception`` takes any: so do the cases),
        and each other common exception it takes too (``except (A, B)``), joined by ``|``."""
        broadest: type = getattr(builtins, raised)
        for kind in broadest.__mro__[1:]:
            if kind is BaseException or getattr(builtins, kind.__name__, None) is not kind:
                break
            if not self.passes(index, _raiser(kind)):
                break
            broadest = kind
        taken = [broadest]
        for name in OTHER_EXCEPTIONS:
            kind = getattr(builtins, name)
            if not issubclass(kind, tuple(taken)) and self.passes(index, _raiser(kind)):
                taken.append(kind)
        return "|".join(kind.__name__ for kind in taken)

    def _returning(self, index: int, call: "_Call") -> "dict[str, object] | None":
        if self.passes(index, _Nothing):
            if self._ignores(index):
                return None
            raise _Legacy(
                f"the check accepts call {index + 1}'s result being almost anything but not "
                "some plain values: it tests a property (is not None, != 0), not the value"
            )
        truth = bool(decode(call.value))
        if self.passes(index, lambda: _Truth(truth)):
            raise _Legacy(
                f"the check accepts anything {'true' if truth else 'false'} as call "
                f"{index + 1}'s result: it tests the truth value (assert f(x), assert not "
                "f(x)), not the value"
            )
        arguments: Any = decode(call.args)
        if any(_mutable(arg) for arg in arguments) and not self.passes(index, mutate=True):
            raise _Legacy(
                f"the check looks at call {index + 1}'s arguments after the call (that they "
                "are left unchanged, say), which cases cannot say"
            )
        value: Any = decode(call.value)
        near = _near(value)
        if near is not None and self.passes(index, lambda near=near: decode(encode(near))):
            raise _Legacy(
                f"the check accepts {_short(near)} where the reference returned "
                f"{_short(value)}: it inspects properties of the result, not its value"
            )
        signed = _signed_zeros(value)
        if json.dumps(encode(signed)) != json.dumps(call.value) and not self.passes(
            index, lambda: decode(encode(signed))
        ):
            raise _Legacy(
                f"the check tells -0.0 from 0.0 in call {index + 1}'s result, which cases "
                "cannot say (they compare floats with ==)"
            )
        # 3.0 == 3 and True == 1: compare texts. Cases by value take a bool for 0 or 1 too,
        # which a check that refuses bools (not isinstance(r, bool)) must be asked about.
        for retyped in (_retyped(value), _as_bools(value)):
            if json.dumps(encode(retyped)) != json.dumps(call.value):
                self.by_value.append(
                    self.passes(index, lambda retyped=retyped: decode(encode(retyped)))
                )
        return {"args": call.args, "expected": call.value}

    def _reverses(self, index: int, value: "Any") -> bool:
        """Whether the check takes call ``index``'s result reversed; raises _Legacy when it
        takes the reverse but not a rotation (one of two orders)."""
        flipped = value[::-1]
        reverses = self.passes(index, lambda: decode(encode(flipped)))
        rotated = value[1:] + value[:1]
        if (
            reverses
            and len(value) > 2
            and rotated not in (value, flipped)
            and not self.passes(index, lambda: decode(encode(rotated)))
        ):
            raise _Legacy(
                f"the check accepts call {index + 1}'s result reversed but not rotated: it "
                "wants one of two orders, which cases cannot say"
            )
        return reverses

    def _converts(self, index: int) -> bool:
        """Whether the check takes call ``index``'s collection as a list and as a tuple too,
        items in the same order, and as a collection that can only be iterated over, as a set
        (it converts the result: ``tuple(f(x)) == ...``). Cases that take any collection take
        a set: a check that reads the result by position (``r[0] == 1``) takes a list and a
        tuple, and fails a set."""
        kind = type(decode(self.calls[index].value))
        others: list[Any] = [other for other in (list, tuple) if other is not kind]
        return all(
            self.passes(index, lambda other=other: other(decode(self.calls[index].value)))
            for other in [*others, _Iterable]
        )

    def _as_set(self, indices: "list[int]") -> bool:
        """Whether the check takes every collection with its first item repeated, and with its
        items rotated, as a list (it compares ``set(f(x))``: order and repeats do not matter).
        A check that reads items by position (``r[0] == 1 and r[1] == 3``) takes the repeat,
        added at the end, but not the rotation."""
        probed = False
        for index in indices:
            value: Any = decode(self.calls[index].value)
            items = list(value)
            if not items:
                continue
            probed = True
            rotated = items[1:] + items[:1]
            if not self.passes(index, lambda items=items: [*items, items[0]]) or (
                rotated != items and not self.passes(index, lambda rotated=rotated: rotated)
            ):
                return False
        return probed

    def _ignores(self, index: int) -> bool:
        """Whether the check never looks at call ``index``'s result: it accepts any plain
        answer, and an answer that notes being looked at (:class:`_Watched`) without looking
        at it. Raises _Legacy where it accepts them all and looks: ``!= 10`` takes every plain
        value and rejects only 10, which no case can say, and cases leaving the call out
        passed ``return 10``."""
        plains: tuple[object, ...] = (None, 0, -1, 1.5, False, True, "", "x", [], ())
        if not all(self.passes(index, lambda plain=plain: plain) for plain in plains):
            return False
        seen: list[str] = []
        if not self.passes(index, lambda: _Watched(seen)):
            return False
        if seen:
            raise _Legacy(
                f"the check takes any plain value as call {index + 1}'s result, yet "
                f"{seen[0]}: it may reject a value no probe can find (as != 10 rejects "
                "10), which cases cannot say"
            )
        return True

    def _tolerance(self, floats: "list[int]") -> "float | None":
        """The tolerance the check allows, where each float it takes within it (half of it,
        at least, up and down) would pass it too; raises _Legacy otherwise. At 1e-6, a float
        the check compares exactly (it rejects a move of 1e-8) is left to that tolerance, as
        the judge's default 1e-9 leaves all of them."""
        if not floats:
            return None
        for tolerance in TOLERANCES:
            if not any(self._accepts(i, 10 * tolerance) for i in floats):
                break
        else:
            raise _Legacy("the check accepts floats 10% away from the reference's")
        tolerant = floats
        if tolerance == TOLERANCES[1]:
            tolerant = [i for i in floats if self._accepts(i, 10 * TOLERANCES[0])]
        # Cases take a float moved either way: so must the check (round(f(x), 2) == 0.33 takes
        # 0.3251 moved up by 0.005, and not 0.3201, which cases within 0.01 would take).
        if tolerance > TOLERANCES[0] and not all(
            self._accepts(i, tolerance / 2) and self._accepts(i, -tolerance / 2) for i in tolerant
        ):
            raise _Legacy(
                "the check compares floats with a tolerance that cases cannot state "
                "(absolute where the values are large, one-sided such as a rounding, or on "
                "something computed from them)"
            )
        for index in floats:
            self._tiny(index, tolerance)
        return None if tolerance == TOLERANCES[0] else tolerance

    def _tiny(self, index: int, tolerance: float) -> None:
        """Raise _Legacy where call ``index``'s result holds a float so near zero that the
        cases' absolute tolerance is a large part of it, and the check does not take it moved
        by half that tolerance: the cases would take anything within ``tolerance`` of it (0.0
        for 1e-12), where the check compares it exactly or more tightly. A zero is left to the
        tolerance, as rounding is (0.1 + 0.2 - 0.3 is 5.6e-17)."""
        value = decode(self.calls[index].value)
        bound = TINY * tolerance
        tiny = _tiny_floats(value, bound)
        if tiny and not self.passes(index, lambda: _moved_tiny(value, tolerance / 2, bound)):
            raise _Legacy(
                f"the check compares {tiny[0]!r} in call {index + 1}'s result more tightly "
                f"than cases can: they take any float within {tolerance:g} of one under 1, "
                "a large part of a value so near zero"
            )

    def _accepts(self, index: int, step: float) -> bool:
        value = decode(self.calls[index].value)
        return self.passes(index, lambda: _moved(value, step))


def _moved(value: "Any", step: float) -> "Any":
    """``value`` with every float moved up by ``step`` (relative above 1, absolute below; down
    for a negative ``step``)."""
    kind = type(value)
    if kind is float:
        return value + step * max(1.0, abs(value)) if math.isfinite(value) else value
    if kind in (list, tuple):
        return kind(_moved(item, step) for item in value)
    if kind is dict:
        return {key: _moved(item, step) for key, item in value.items()}
    return value


TINY = 1000
"""A nonzero float under this many times the cases' tolerance is near zero: within that
tolerance of it, the cases take values more than a thousandth away from it."""


def _tiny_floats(value: "Any", bound: float) -> "list[float]":
    """The finite nonzero floats in ``value`` under ``bound`` in size."""
    kind = type(value)
    if kind is float:
        return [value] if 0 < abs(value) < bound else []
    if kind in (list, tuple):  # as _moved: a set's members are not moved
        return [found for item in value for found in _tiny_floats(item, bound)]
    if kind is dict:
        return [found for item in value.values() for found in _tiny_floats(item, bound)]
    return []


def _moved_tiny(value: "Any", step: float, bound: float) -> "Any":
    """``value`` with every nonzero float under ``bound`` in size moved up by ``step``, the
    others as they are."""
    kind = type(value)
    if kind is float:
        return value + step if 0 < abs(value) < bound else value
    if kind in (list, tuple):
        return kind(_moved_tiny(item, step, bound) for item in value)
    if kind is dict:
        return {key: _moved_tiny(item, step, bound) for key, item in value.items()}
    return value


def _retyped(value: "Any") -> "Any":
    """``value`` with each number of another type and the same value: a bool as an int, an int
    as a float, a whole float as an int (what ``==`` does not tell apart)."""
    kind = type(value)
    if kind is bool:
        return int(value)
    if kind is int:
        return float(value) if abs(value) < 2**53 else value
    if kind is float:
        return int(value) if math.isfinite(value) and value.is_integer() else value
    if kind in (list, tuple):
        return kind(_retyped(item) for item in value)
    if kind is dict:
        return {key: _retyped(item) for key, item in value.items()}
    return value


def _as_bools(value: "Any") -> "Any":
    """``value`` with each int or float equal to 0 or 1 (not a bool already) a bool, the
    others as they are."""
    kind = type(value)
    if kind in (int, float):
        return bool(value) if value in (0, 1) else value
    if kind in (list, tuple):
        return kind(_as_bools(item) for item in value)
    if kind is dict:
        return {key: _as_bools(item) for key, item in value.items()}
    return value


def _holds_probe(value: "Any") -> bool:
    """Whether ``value`` is or holds an answer a probe gave (a result equal to nothing): the
    check passed that result on to the function."""
    if isinstance(value, _Nothing):
        return True
    kind = type(value)
    if kind in (list, tuple, set, frozenset):
        return any(_holds_probe(item) for item in value)
    if kind is dict:
        return any(_holds_probe(k) or _holds_probe(v) for k, v in value.items())
    return False


def _mutable(value: "Any") -> bool:
    return type(value) in (list, dict, set)


def _change(value: "Any") -> None:
    """Change a list, dict or set argument in place, as a careless candidate would."""
    kind = type(value)
    if kind is list:
        value.append(value[0] if value else 0)
        value.reverse()
    elif kind is dict:
        value["(changed)"] = 0
    elif kind is set:
        value.add("(changed)")


def _signed_zeros(value: "Any") -> "Any":
    """``value`` with the sign of each zero float turned (``==`` does not tell -0.0 from 0.0,
    and neither do cases)."""
    kind = type(value)
    if kind is float:
        return -value if value == 0 else value
    if kind in (list, tuple):
        return kind(_signed_zeros(item) for item in value)
    if kind is dict:
        return {key: _signed_zeros(item) for key, item in value.items()}
    return value


def _has_float(value: "Any") -> bool:
    """Whether ``value`` holds a finite float, whose tolerance the check may set (``nan`` and
    ``inf`` are matched exactly)."""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    if kind in (list, tuple, set, frozenset):
        return any(_has_float(item) for item in value)
    if kind is dict:
        return any(_has_float(item) for item in value.values())
    return False


def _raiser(kind: "type") -> "Any":
    """An answer that raises ``kind``, as a replayed call raises."""

    def answer() -> "Any":
        raise kind("replayed")

    return answer


def _near(value: "Any") -> "Any":  # noqa: PLR0911 - one near miss per type
    """A value of the same type that equality tells apart from ``value``."""
    kind = type(value)
    if kind is bool:
        return not value
    if kind is int:
        return value + 1
    if kind is str:
        return value + "x"
    if kind is bytes:
        return value + b"x"
    if value is None:
        return 0
    if kind in (list, tuple):
        return kind(value[:-1]) if value else kind([0])
    if kind in (set, frozenset):
        return kind(list(value)[1:]) if value else kind([0])
    if kind is dict:
        return dict(list(value.items())[1:]) if value else {0: 0}
    return None  # floats: probed by tolerance


def _fooled(check: "Any") -> bool:
    """Whether the check passes a candidate that returns an object equal to everything."""
    random.seed(0)
    try:
        check(lambda *args, **kwargs: _Anything())
    except BaseException:  # noqa: BLE001 - rejected, whatever the way
        return False
    return True


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(exc: BaseException) -> str:
    try:
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
        return "".join(lines[-2:]).strip()[-400:]
    except BaseException:  # noqa: BLE001 - an exception whose text itself fails
        return "an exception that cannot be described"


if __name__ == "__main__":
    _main()
