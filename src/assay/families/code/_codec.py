"""Values JSON cannot hold, written as JSON: the encoding of case files from format 4.

Stdlib only: the harnesses that run in the sandbox carry this module's source in front of their
own (see :data:`assay.families.code.family.RUNNER`), and the trusted side imports it.

A plain JSON value stands for itself, except an object with exactly one key that starts with
``$``, which is a tagged value:

- ``{"$tuple": [items]}``, ``{"$set": [items]}``, ``{"$frozenset": [items]}``;
- ``{"$dict": [[key, value], ...]}``: a dict whose keys are not all strings (or whose only key
  starts with ``$``);
- ``{"$float": "inf" | "-inf" | "nan"}``;
- ``{"$bytes": "<base64>"}``.

Items, keys and values are encoded values themselves. :func:`encode` writes the members of sets
sorted by their JSON text, so equal sets have equal encodings, and :func:`normalize` does the
same to an encoding read from anywhere else. Dicts keep their order (a function may iterate over
its argument); comparing them ignores it, as ``==`` does.
"""

import base64
import binascii
import json
import math

TAGS = ("$tuple", "$set", "$frozenset", "$dict", "$float", "$bytes")
_FLOATS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
_TAGS_HINT = "a tagged value is one of " + ", ".join(f'{{"{tag}": ...}}' for tag in TAGS)


class EncodingError(ValueError):
    """A value that cannot be encoded, or an encoding that is malformed; the message says where."""


def _sorted(items: "list[object]") -> "list[object]":
    return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))


def encode(value: object, where: str = "$") -> object:  # noqa: PLR0911 - one answer per type
    """``value`` as encoded JSON data; raises :class:`EncodingError` for any other type
    (subclasses of the builtin types included: their behaviour is not data)."""
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float and isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if kind in (list, tuple) and isinstance(value, list | tuple):
        items = [encode(item, f"{where}[{i}]") for i, item in enumerate(value)]
        return items if kind is list else {"$tuple": items}
    if kind in (set, frozenset) and isinstance(value, set | frozenset):
        tag = "$set" if kind is set else "$frozenset"
        return {tag: _sorted([encode(item, f"{where}{{}}") for item in value])}
    if kind is dict and isinstance(value, dict):
        return _encode_dict(value, where)
    if kind is bytes and isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    raise EncodingError(f"{where}: {kind.__name__} cannot be encoded")


def _encode_dict(value: "dict[object, object]", where: str) -> object:
    keys = [key for key in value if type(key) is str and isinstance(key, str)]
    if len(keys) == len(value) and not (len(keys) == 1 and keys[0].startswith("$")):
        return {key: encode(value[key], f"{where}.{key}") for key in keys}
    pairs: list[object] = [
        [encode(key, f"{where} key"), encode(item, f"{where}[{key!r}]")]
        for key, item in value.items()
    ]
    return {"$dict": pairs}


def decode(data: object, where: str = "$") -> object:  # noqa: PLR0911 - one answer per tag
    """The value ``data`` encodes; raises :class:`EncodingError` naming where it is malformed."""
    if isinstance(data, list):
        return [decode(item, f"{where}[{i}]") for i, item in enumerate(data)]
    if not isinstance(data, dict):
        return data
    tag = _tag(data, where)
    if tag is None:
        return {key: decode(item, f"{where}.{key}") for key, item in data.items()}
    payload = data[tag]
    if tag == "$float":
        if payload not in _FLOATS:
            raise EncodingError(f'{where}: $float is "inf", "-inf" or "nan", not {payload!r}')
        return _FLOATS[payload]
    if tag == "$bytes":
        return _bytes(payload, where)
    if not isinstance(payload, list):
        raise EncodingError(f"{where}: {tag} holds a list")
    items = [decode(item, f"{where}[{i}]") for i, item in enumerate(payload)]
    try:
        if tag == "$tuple":
            return tuple(items)
        if tag == "$set":
            return set(items)
        if tag == "$frozenset":
            return frozenset(items)
        return _pairs(items, where)
    except TypeError:
        raise EncodingError(
            f"{where}: a member of {tag} is a list, dict or set (unhashable); "
            "use $tuple or $frozenset"
        ) from None


def _tag(data: "dict[object, object]", where: str) -> "str | None":
    if len(data) != 1:
        return None
    key = next(iter(data))
    if not isinstance(key, str) or not key.startswith("$"):
        return None
    if key not in TAGS:
        raise EncodingError(f"{where}: unknown tag {key!r}; {_TAGS_HINT}")
    return key


def _bytes(payload: object, where: str) -> bytes:
    if not isinstance(payload, str):
        raise EncodingError(f"{where}: $bytes holds base64 text")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise EncodingError(f"{where}: $bytes holds base64 text") from None


def _pairs(items: "list[object]", where: str) -> "dict[object, object]":
    result: dict[object, object] = {}
    for i, pair in enumerate(items):
        if not isinstance(pair, list) or len(pair) != 2:
            raise EncodingError(f"{where}[{i}]: a $dict item is a [key, value] pair")
        result[pair[0]] = pair[1]
    return result


def normalize(data: object, where: str = "$") -> object:
    """The canonical encoding of what ``data`` encodes; raises :class:`EncodingError`."""
    return encode(decode(data, where), where)
