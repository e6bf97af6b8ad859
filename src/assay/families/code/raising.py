"""Cases that expect an exception: which types a case may name, and what counts as raising one.

A case names a builtin exception type (``"raises": "ValueError"``), or several joined by ``|``
(``"ValueError|TypeError"``, as ``except (ValueError, TypeError):`` has it). The candidate passes
when the exception it raised would be caught by ``except ValueError:``: the type itself or any
subclass, builtin (``UnicodeDecodeError`` for ``ValueError``) or its own (``class
ParseError(ValueError)``).
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
_NAME = r"`?\b([A-Z][A-Za-z]*(?:Error|Exception))\b`?"
"""An exception's name, from the start of a word only: tried at every letter of a long word, the
name's letters would be read to the word's end again and again (a 500,000-letter word took
minutes)."""
_PROMISE = re.compile(
    rf"\b(?i:raises?|raising|throw[sn]?|throwing|fail(?:s|ing)?\s+with)\s+(?i:an?\s+)?{_NAME}"
    rf"|{_NAME}\s+(?i:is|are|be|gets?)\s+(?i:raised|thrown)\b"
)
"""Words that promise an exception: "raise(s) ValueError", "raising a KeyError", "throw(s) /
thrown TypeError", "fails with ValueError", "ValueError is raised (thrown)"; the name may be
in backticks."""
_DENIED = re.compile(r"\b(?:not|never|n't|without|no)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
"""Words just before a promise that deny it: "must not raise KeyError", "without raising"."""


def alternatives(name: str) -> list[str]:
    """The types a case's ``raises`` names: one, or several joined by ``|`` (``except (A, B)``
    catches either)."""
    return name.split("|")


def expectable(name: str) -> bool:
    """Whether a case may expect ``name``: a builtin subclass of :class:`Exception`, or several
    joined by ``|``."""
    found = [_BUILTIN_EXCEPTIONS.get(part) for part in alternatives(name)]
    return all(kind is not None and issubclass(kind, Exception) for kind in found)


def counts_as(expected: str, reported: tuple[str, ...]) -> bool:
    """Whether an exception whose builtin bases are ``reported`` is an ``expected`` (any one of
    them, when it names several)."""
    bases = [_BUILTIN_EXCEPTIONS.get(name) for name in reported]
    for part in alternatives(expected):
        wanted = _BUILTIN_EXCEPTIONS.get(part)
        if wanted is not None and any(b is not None and issubclass(b, wanted) for b in bases):
            return True
    return False


def promised_exceptions(text: str) -> set[str]:
    """The exception types ``text`` promises to raise (``Raise ValueError for ...``, ``signal
    it by raising ValueError``, ``a KeyError is thrown``), but not those it denies (``never
    raises KeyError``)."""
    names = set()
    for match in _PROMISE.finditer(text):
        name = match.group(1) or match.group(2)
        if expectable(name) and not _denied(text, match.start()):
            names.add(name)
    return names


def _denied(text: str, start: int) -> bool:
    """Whether the words just before ``start`` deny what follows (``must not``, ``never``)."""
    return _DENIED.search(text[max(0, start - 40) : start]) is not None
