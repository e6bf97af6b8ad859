"""``task.toml`` text to :class:`TaskSpec` and back; a malformation is one line naming the field."""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import ValidationError

from assay._toml import has_long_key
from assay.errors import InputError, TaskFormatError, UnknownFamilyError
from assay.tasks.spec import TaskSpec

MAX_SPEC_NESTING = 32
"""How deeply tables and arrays may nest in ``task.toml``: code that reads the settings recurses
(pydantic, ``tomli_w``, the families), and no family's settings nest more than a few levels."""

_SPEC_FIELDS = frozenset(TaskSpec.model_fields)


def parse_spec(text: str, path: Path) -> TaskSpec:
    """The spec written in ``text``, the contents of ``path``; raises :class:`TaskFormatError`
    (or :class:`UnknownFamilyError`) naming ``path`` and the field, whatever the text holds."""
    if text.startswith("\ufeff"):
        raise TaskFormatError(
            "starts with a byte order mark, which TOML does not allow",
            path=path,
            fix="save it as UTF-8 without a BOM",
        )
    if has_long_key(text, MAX_SPEC_NESTING + 1):  # refused unparsed: see assay._toml
        raise _too_deep(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TaskFormatError(f"not valid TOML: {exc}", path=path, fix="fix the syntax") from None
    except RecursionError:  # the parser recurses once an array or inline table opens
        data = None
    except ValueError as exc:  # a value TOML allows and Python refuses (a 5,000-digit integer)
        raise TaskFormatError(
            f"holds a value that cannot be read: {exc}", path=path, fix="correct the value"
        ) from None
    if data is None or not _nests_at_most(data, MAX_SPEC_NESTING):
        raise _too_deep(path)
    nan = _nan_at(data)
    if nan is not None:
        raise TaskFormatError(
            "is nan, which equals nothing, itself included: the task would never match a copy "
            "of itself",
            path=path,
            field=".".join(_key_shown(part) for part in nan),
            fix="give a number",
        )
    try:
        return TaskSpec.model_validate(_with_settings(data, path))
    except ValidationError as exc:
        raise _spec_error(path, exc, data) from None


def spec_to_toml(spec: TaskSpec) -> str:
    """The ``task.toml`` text for a spec, the family's settings in a table named after it."""
    data: dict[str, Any] = spec.model_dump(mode="json", exclude={"config"}, exclude_none=True)
    if spec.config:
        data[spec.family] = spec.config
    return tomli_w.dumps(data)


def _too_deep(path: Path) -> TaskFormatError:
    return TaskFormatError(
        f"tables and arrays nest more than {MAX_SPEC_NESTING} levels deep",
        path=path,
        fix="flatten the settings, or move data into hidden/",
    )


def _nan_at(data: dict[str, Any]) -> tuple[int | str, ...] | None:
    """Where the first NaN in ``data`` (TOML's ``nan``) is, as a path of keys; None if none."""
    pending: list[tuple[object, tuple[int | str, ...]]] = [(data, ())]
    while pending:
        value, at = pending.pop()
        if isinstance(value, float) and math.isnan(value):
            return at
        if isinstance(value, dict):
            pending.extend((v, (*at, k)) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend((v, (*at, i)) for i, v in enumerate(value))
    return None


def _nests_at_most(data: dict[str, Any], limit: int) -> bool:
    """Whether no table or array in ``data`` lies more than ``limit`` levels deep."""
    pending: list[tuple[object, int]] = [(data, 0)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict):
            items: list[object] = list(value.values())
        elif isinstance(value, list):
            items = value
        else:
            continue
        if depth >= limit:
            return False
        pending.extend((item, depth + 1) for item in items)
    return True


def _with_settings(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The fields of :class:`TaskSpec` in ``data``: the table named after the family becomes
    ``config``; a table named ``config`` is an unknown field unless the family has that name,
    and a family named after another field (``limits``) has no settings table."""
    family = data.get("family")
    settings = None
    if isinstance(family, str) and family in data and family not in _SPEC_FIELDS - {"config"}:
        settings = data.pop(family)
        if not isinstance(settings, dict):
            raise TaskFormatError(
                "must be a table of the family's settings",
                path=path,
                field=family,
                fix=f"write the settings under [{family}]",
            )
    if "config" in data:
        where = f"[{family}]" if isinstance(family, str) else "a table named after the family"
        raise TaskFormatError(
            "unknown field", path=path, field="config", fix=f"put the family's settings in {where}"
        )
    if settings is not None:
        data["config"] = settings
    return data


def _spec_error(path: Path, exc: ValidationError, data: dict[str, Any]) -> InputError:
    first = exc.errors()[0]
    field = ".".join(_key_shown(part) for part in first["loc"]) or "(top level)"
    if first["type"] == "extra_forbidden":
        family = data.get("family")
        if len(first["loc"]) == 1 and isinstance(family, str):
            unknown = _unknown_family(family, path)
            if unknown is not None:
                return unknown
        return TaskFormatError(
            "unknown field",
            path=path,
            field=field,
            fix="remove it, or put family settings in a table named after the family",
        )
    if first["type"] == "missing":
        return TaskFormatError("required field is missing", path=path, field=field, fix="add it")
    given = first.get("input")
    if isinstance(given, str | bool | int | float) and len(shown := json.dumps(given)) <= 60:
        return TaskFormatError(
            f"{first['msg']}; it is {shown}", path=path, field=field, fix="correct the value"
        )
    return TaskFormatError(first["msg"], path=path, field=field, fix="correct the value")


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]{1,60}")
"""A key shown as it is; any other is quoted as TOML quotes it, and cut short."""


def _key_shown(part: int | str) -> str:
    """One part of a field's path as the message names it: a key holding a line break, a
    control character or a dot is quoted with escapes (the message stays one line and names
    the key exactly), and a key of more than 60 characters is cut short."""
    if isinstance(part, int) or _BARE_KEY.fullmatch(part):
        return str(part)
    shown = json.dumps(part[:60])
    return shown if len(part) <= 60 else f'{shown[:-1]}..."'


def _unknown_family(family: str, path: Path) -> UnknownFamilyError | None:
    """The error for a ``family`` nobody registered, which is why no table is its settings;
    ``None`` when it is registered (the unknown field is then only that)."""
    from assay.families import family_names  # noqa: PLC0415 - the registry imports tasks

    known = family_names()
    if family in known:
        return None
    return UnknownFamilyError(
        f"unknown family {family!r}",
        path=path,
        field="family",
        fix=f"use one of: {', '.join(known) or 'none'}; its settings go in a table of that name",
    )
