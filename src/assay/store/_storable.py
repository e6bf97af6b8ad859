"""Text as a database can hold it. Python text may hold lone surrogates (an unpaired
``\\ud800``-``\\udfff``: the bytes of a file name that is not UTF-8, or a JSON escape), which
neither SQLite nor PostgreSQL stores: binding one raised, and the verdict or the episodes being
kept were lost. Each becomes U+FFFD, as the audit already writes such a name."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(value: object) -> object:
    """``value``, with each lone surrogate replaced when it is text."""
    if isinstance(value, str) and _SURROGATE.search(value):
        return _SURROGATE.sub("\ufffd", value)
    return value


def storable_row(parameters: Sequence[Any]) -> list[object]:
    """The parameters of one statement, each :func:`storable`."""
    return [storable(value) for value in parameters]


def record_json(model: BaseModel, **options: Any) -> str:
    """``model`` as the JSON text a record is kept as; a lone surrogate in it (which pydantic
    refuses to write) becomes U+FFFD. ``options`` are :meth:`BaseModel.model_dump`'s."""
    try:
        return model.model_dump_json(**options)
    except PydanticSerializationError:
        dumped = json.dumps(model.model_dump(mode="json", **options), ensure_ascii=False)
        return str(storable(dumped))
