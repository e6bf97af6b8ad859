"""The price table: cost per episode from token usage, read from a user's file."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import InputError
from assay.policies import Price, PriceTable, Usage


def test_cost_uses_the_first_model_with_a_price() -> None:
    table = PriceTable(prices={"m": Price(input_per_mtok=2.0, output_per_mtok=8.0)})
    usage = Usage(input_tokens=1_000_000, output_tokens=500_000)
    assert table.cost(("served-name", "m"), usage) == pytest.approx(6.0)
    assert table.cost(("unknown", None), usage) is None
    assert table.cost(("unknown",), Usage()) == 0.0


def test_tables_are_read_from_toml_and_json(tmp_path: Path) -> None:
    toml = tmp_path / "prices.toml"
    toml.write_text("[m]\ninput_per_mtok = 1.5\noutput_per_mtok = 3\n")
    assert PriceTable.from_file(toml).prices["m"].output_per_mtok == 3
    json_file = tmp_path / "prices.json"
    json_file.write_text('{"m": {"input_per_mtok": 1, "output_per_mtok": 2}}')
    assert PriceTable.from_file(json_file).prices["m"].input_per_mtok == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[m]\ninput_per_mtok = -1\noutput_per_mtok = 1\n",
            "m.input_per_mtok: Input should be greater than or equal to 0",
        ),
        ("[m]\ninput_per_mtok = 1\n", "m.output_per_mtok: Field required"),
        (  # an episode's cost would be inf, then stored as null: "no price"
            "[m]\ninput_per_mtok = inf\noutput_per_mtok = 1\n",
            "m.input_per_mtok: Input should be a finite number",
        ),
        ("m = [", "not valid toml"),
    ],
)
def test_a_bad_table_names_the_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        PriceTable.from_file(path)
    assert str(caught.value).startswith(f"{path}: {message}")
    with pytest.raises(InputError, match="cannot read it"):
        PriceTable.from_file(tmp_path / "missing.toml")


def test_a_table_too_large_to_be_one_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "prices.toml"
    with path.open("wb") as huge:  # sparse: read whole, it would take all memory
        huge.truncate(64 << 30)
    with pytest.raises(InputError) as caught:
        PriceTable.from_file(path)
    assert str(caught.value).startswith(f"{path}: larger than 1 MiB")
    path.write_bytes(b"m = \xff\n")
    with pytest.raises(InputError, match="not UTF-8 text"):
        PriceTable.from_file(path)


def test_a_price_whose_cost_overflows_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "prices.toml"
    path.write_text("[m]\ninput_per_mtok = 1e308\noutput_per_mtok = 1\n")
    with pytest.raises(InputError) as caught:
        PriceTable.from_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: m.input_per_mtok: Input should be less than or equal")
    assert "at most 1e+06" in message
    assert "\n" not in message
    top = PriceTable(prices={"m": Price(input_per_mtok=1e6, output_per_mtok=1e6)})
    most = 2**63 - 1  # the most tokens a turn records, reported on many turns
    assert top.cost(("m",), Usage(input_tokens=most * 1000, output_tokens=most)) > 0


@pytest.mark.parametrize("tokens", [10**305, 10**400], ids=["inf", "past-a-float"])
def test_a_cost_is_never_infinite(tokens: int) -> None:
    table = PriceTable(prices={"m": Price(input_per_mtok=1e6, output_per_mtok=1e6)})
    assert table.cost(("m",), Usage(input_tokens=tokens, output_tokens=1)) is None
