"""Token prices per model, set by the user, and the cost of an episode's tokens."""

from __future__ import annotations

import json
import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay import _toml
from assay.errors import InputError
from assay.policies.messages import Usage

MAX_PRICES_BYTES = 2**20
"""The largest price table read: a line per model is a few dozen bytes."""
MAX_PRICE_PER_MTOK = 1e6
"""The highest price taken, in dollars per million tokens: far above any model's, and low
enough that the cost of any token count an episode can record stays a finite number."""


class Price(BaseModel):
    """What one model's tokens cost, in US dollars per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_mtok: float = Field(
        ge=0,
        le=MAX_PRICE_PER_MTOK,
        allow_inf_nan=False,
        description="Dollars per million prompt tokens, at most 1e6.",
    )
    output_per_mtok: float = Field(
        ge=0,
        le=MAX_PRICE_PER_MTOK,
        allow_inf_nan=False,
        description="Dollars per million completion tokens, at most 1e6.",
    )


class PriceTable(BaseModel):
    """Prices by model name. Empty by default: prices change, so assay ships none."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prices: dict[str, Price] = Field(default_factory=dict, description="Price by model name.")

    def cost(self, models: tuple[str | None, ...], usage: Usage) -> float | None:
        """Dollars for ``usage`` at the first of ``models`` with a price; 0 when no tokens were
        used; None when none of them has a price, or when the cost is past what a float holds
        (token counts no model policy reports: never ``inf`` or ``nan``)."""
        if usage.total == 0:
            return 0.0
        for model in models:
            price = self.prices.get(model) if model else None
            if price is not None:
                return _dollars(usage, price)
        return None

    @classmethod
    def from_file(cls, path: Path | str) -> PriceTable:
        """Read a table from TOML or JSON: ``{"model": {"input_per_mtok": 0.5, ...}}``.

        Raises :class:`InputError` naming the file and the field that is wrong.
        """
        path = Path(path)
        try:
            with path.open("rb") as opened:
                raw = opened.read(MAX_PRICES_BYTES + 1)
        except OSError as exc:
            raise InputError(f"cannot read it: {exc.strerror}", path=path) from None
        if len(raw) > MAX_PRICES_BYTES:
            raise InputError(
                f"larger than {MAX_PRICES_BYTES // 2**20} MiB",
                path=path,
                fix="give one entry per model and nothing else",
            )
        try:
            text = raw.decode("utf-8")
            data = json.loads(text) if path.suffix == ".json" else _toml.loads(text)
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", path=path, fix="save it as UTF-8") from None
        except (ValueError, RecursionError) as exc:  # TOMLDecodeError is a ValueError
            raise InputError(f"not valid {path.suffix[1:] or 'TOML'}: {exc}", path=path) from None
        try:
            return cls(prices=data)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(part) for part in error["loc"][1:])
            fix = "give input_per_mtok and output_per_mtok"
            if error["type"] == "less_than_equal":
                fix = (
                    f"give the price in dollars per million tokens, at most {MAX_PRICE_PER_MTOK:g}"
                )
            raise InputError(error["msg"], path=path, field=field, fix=fix) from None


def _dollars(usage: Usage, price: Price) -> float | None:
    """What ``usage`` costs at ``price``; None when it is past what a float holds."""
    try:
        dollars = (
            usage.input_tokens * price.input_per_mtok + usage.output_tokens * price.output_per_mtok
        ) / 1_000_000
    except OverflowError:  # a token count past the largest float
        return None
    return dollars if math.isfinite(dollars) else None
