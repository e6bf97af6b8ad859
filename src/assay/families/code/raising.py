"""Cases that expect an exception: which types a case may name, and what counts as raising one.

A case names a builtin exception type (``"raises": "ValueError"``). The candidate passes when the
exception it raised would be caught by ``except ValueError:``: the type itself or any subclass,
builtin (``UnicodeDecodeError`` for ``ValueError``) or its own (``class ParseError(ValueError)``).
The harness reports only names: the raised class's name, for evidence, and the names of the
builtin exception classes in its method resolution order. The trusted side looks those names up
in its own ``builtins`` and decides with its own ``issubclass``; no object of the candidate's
reaches it, and a forged list of names wins nothing that raising a real builtin would not.
"""

from __future__ import annotations

import builtins
import re

_BUILTIN_EXCEPTIONS: dict[str, type[BaseException]] = {
    name: value
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}
_PROMISE = re.compile(r"\b[Rr]aises?\s+(?:an?\s+)?`?([A-Z][A-Za-z]*(?:Error|Exception))\b")


def expectable(name: str) -> bool:
    """Whether a case may expect ``name``: a builtin subclass of :class:`Exception`."""
    found = _BUILTIN_EXCEPTIONS.get(name)
    return found is not None and issubclass(found, Exception)


def counts_as(expected: str, reported: tuple[str, ...]) -> bool:
    """Whether an exception whose builtin bases are ``reported`` is an ``expected``."""
    wanted = _BUILTIN_EXCEPTIONS.get(expected)
    if wanted is None:
        return False
    return any(
        issubclass(found, wanted)
        for found in (_BUILTIN_EXCEPTIONS.get(name) for name in reported)
        if found is not None
    )


def promised_exceptions(text: str) -> set[str]:
    """The exception types ``text`` promises to raise (``Raise ValueError for ...``)."""
    return {name for name in _PROMISE.findall(text) if expectable(name)}
