"""Text similarity of tasks: MinHash with LSH for near duplicates, n-grams for contamination.
Pure Python, no model: what is compared is the words. The audit's set checks use it, and so do
generators, to avoid writing near duplicates in the first place.
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations, islice

SHINGLE_WORDS = 3
"""Words in a shingle for near duplicates."""
DUPLICATE_SIMILARITY = 0.8
"""Jaccard similarity of shingles from which two texts are near duplicates."""
PERMUTATIONS = 64
"""MinHash values per text."""
BANDS = 16
"""LSH bands of ``PERMUTATIONS / BANDS`` rows: pairs above about 0.5 Jaccard become candidates."""
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The words of ``text``, lowercased: punctuation, layout and case do not tell tasks apart."""
    return _WORD.findall(text.lower())


def ngrams(text: str, n: int) -> set[str]:
    """The word n-grams of ``text``; a text shorter than ``n`` words is one n-gram."""
    tokens = words(text)
    if len(tokens) < n:
        return {" ".join(tokens)} if tokens else set()
    return {" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    """The size of the intersection over the size of the union; 0 for two empty sets."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


@dataclass(frozen=True)
class Pair:
    """Two texts and their exact Jaccard similarity over shingles."""

    first: str
    second: str
    similarity: float


def shingles(text: str) -> set[str]:
    """The shingles near duplicates are measured on."""
    return ngrams(text, SHINGLE_WORDS)


def is_near_duplicate(text: str, others: Iterable[set[str]]) -> bool:
    """Whether ``text`` is a near duplicate of any text whose :func:`shingles` are given."""
    mine = shingles(text)
    return any(jaccard(mine, other) >= DUPLICATE_SIMILARITY for other in others)


def near_duplicates(
    texts: Mapping[str, str], threshold: float = DUPLICATE_SIMILARITY
) -> list[Pair]:
    """Pairs of ``texts`` (by key) whose shingle sets have a Jaccard similarity of at least
    ``threshold``: candidates found by MinHash with LSH, then measured exactly, so a pair
    reported is a pair that is that similar (LSH may miss pairs near the threshold, never
    invent one). Sorted by key."""
    sets = {key: shingles(text) for key, text in texts.items()}
    buckets: defaultdict[tuple[int, tuple[int, ...]], list[str]] = defaultdict(list)
    rows = PERMUTATIONS // BANDS
    for key in sorted(sets):
        signature = _signature(sets[key])
        for band in range(BANDS):
            buckets[band, signature[band * rows : (band + 1) * rows]].append(key)
    candidates = {pair for keys in buckets.values() for pair in combinations(keys, 2)}
    found = []
    for first, second in sorted(candidates):
        similarity = jaccard(sets[first], sets[second])
        if similarity >= threshold:
            found.append(Pair(first, second, similarity))
    return found


def first_copies(
    texts: Iterable[tuple[str, str]], threshold: float = DUPLICATE_SIMILARITY
) -> list[Pair]:
    """For each of ``texts`` (key, text) that is a near duplicate of an earlier one that is
    itself none, the pair of that one (the first such, in the order given) and it: at most one
    pair a text, however many texts are alike (a template's thousand prompts that differ in a
    number are a thousand pairs, not half a million). A text is compared only with the earlier
    originals it shares an LSH band with, measured exactly as in :func:`near_duplicates`; one
    without shingles is none's duplicate. In the order given."""
    rows = PERMUTATIONS // BANDS
    buckets: defaultdict[tuple[int, tuple[int, ...]], list[int]] = defaultdict(list)
    originals: list[tuple[str, set[str]]] = []
    found = []
    for key, text in texts:
        mine = shingles(text)
        if not mine:
            continue
        signature = _signature(mine)
        bands = [(band, signature[band * rows : (band + 1) * rows]) for band in range(BANDS)]
        earlier = sorted({place for band in bands for place in buckets.get(band, ())})
        pair = next(
            (
                Pair(originals[place][0], key, similar)
                for place in earlier
                if (similar := jaccard(mine, originals[place][1])) >= threshold
            ),
            None,
        )
        if pair is not None:
            found.append(pair)
            continue
        for band in bands:
            buckets[band].append(len(originals))
        originals.append((key, mine))
    return found


def _signature(shingled: Iterable[str]) -> tuple[int, ...]:
    """The MinHash signature: for each of the :data:`PERMUTATIONS` hash functions, the least
    value it gives a shingle. Function ``i`` is the ``i``-th 64-bit word of the shingle's
    SHAKE-256 output, so one call hashes a shingle under all of them, and the minima are taken
    in C (a column of the transposed rows each), :data:`_ROWS` shingles at a time, so that a
    long text's rows never all stand in memory at once."""
    signature: tuple[int, ...] | None = None
    pending = iter(shingled)
    while rows := [_SIXTY_FOURS.unpack(_hashes(s)) for s in islice(pending, _ROWS)]:
        if signature is not None:
            rows.append(signature)
        signature = tuple(map(min, zip(*rows, strict=True)))
    return _EMPTY if signature is None else signature


def _hashes(text: str) -> bytes:
    return hashlib.shake_256(text.encode()).digest(8 * PERMUTATIONS)


_SIXTY_FOURS = struct.Struct(f"<{PERMUTATIONS}Q")
_EMPTY = (0,) * PERMUTATIONS
_ROWS = 4096
"""Shingles hashed before their minima are taken (4096 rows of 64 values: a few MB)."""
