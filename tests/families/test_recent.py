"""What a verifier keeps between verifications: the latest values, the oldest dropped first."""

from __future__ import annotations

import threading

from assay.families._recent import Recent


def test_the_value_used_longest_ago_is_dropped_first() -> None:
    recent: Recent[str, int] = Recent(2)
    recent.put("a", 1)
    recent.put("b", 2)
    assert recent.get("a") == 1  # now "b" is the oldest
    recent.put("c", 3)
    assert (recent.get("a"), recent.get("b"), recent.get("c")) == (1, None, 3)
    recent.put("a", 4)
    assert recent.get("a") == 4
    assert len(recent) == 2


def test_threads_sharing_it_keep_at_most_its_size() -> None:
    recent: Recent[int, int] = Recent(8)

    def fill(start: int) -> None:
        for n in range(start, start + 500):
            recent.put(n, n)
            assert recent.get(n) in (n, None)

    threads = [threading.Thread(target=fill, args=(k * 1000,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(recent) == 8
