"""Templates for classic algorithms: binary search, dynamic programming, graph search."""

from __future__ import annotations

import random

from assay.families.code.templates._model import Args, Problem, Template


def _insertion_point(rng: random.Random) -> Problem:
    function = rng.choice(["insertion_index", "insert_position", "search_insert"])
    left = rng.random() < 0.5
    compare = "<" if left else "<="
    reference = f"""
def {function}(values: list, target: int) -> int:
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] {compare} target:
            lo = mid + 1
        else:
            hi = mid
    return lo
"""
    other = "<=" if left else "<"
    wrong_side = reference.replace(f"values[mid] {compare} target", f"values[mid] {other} target")
    short_hi = reference.replace("lo, hi = 0, len(values)", "lo, hi = 0, len(values) - 1")
    found = "values.index(target)" if left else "len(values) - 1 - values[::-1].index(target)"
    modifies = f"""
def {function}(values: list, target: int) -> int:
    values.append(target)
    values.sort()
    return {found}
"""
    bad = {
        "wrong-side-of-duplicates": wrong_side,
        "end-position-unreachable": short_hi,
        "modifies-values": modifies,
    }
    if not left:
        bad["first-match-only"] = f"""
def {function}(values: list, target: int) -> int:
    for index, value in enumerate(values):
        if value == target:
            return index + 1
        if value > target:
            return index
    return len(values)
"""
    cases: list[Args] = [
        ([], 5),
        ([1, 3, 5, 7], 0),
        ([1, 3, 5, 7], 9),
        ([1, 3, 5, 7], 4),
        ([2, 2, 2, 2], 2),
        ([1, 2, 2, 2, 3], 2),
        ([4], 4),
        ([-5, -5, 0, 0, 0, 8], 0),
    ]
    for _ in range(5):
        values = sorted(rng.randint(-10, 10) for _ in range(rng.randint(1, 12)))
        target = rng.choice(values) if rng.random() < 0.7 else rng.randint(-12, 12)
        cases.append((values, target))
    side = (
        "before the first element equal to target (the leftmost valid position)"
        if left
        else "after the last element equal to target (the rightmost valid position)"
    )
    return Problem(
        function=function,
        signature=f"def {function}(values: list[int], target: int) -> int:",
        summary="Find the index at which target would be inserted into a sorted list to keep it sorted.",
        rules=(
            "values is sorted in ascending order and may contain duplicates; it may be empty.",
            "Return an index i in 0..len(values) such that inserting target at i keeps the list sorted.",
            f"When values already contains target, return the position {side}.",
            "A target smaller than every element gives 0; larger than every element gives len(values).",
            "Do not modify values.",
        ),
        reference=reference,
        bad=bad,
        cases=tuple(cases),
        examples=(cases[3], cases[5]),
        inputs="unchanged",
        tags=("binary-search",),
    )


def _lis(rng: random.Random) -> Problem:
    function = rng.choice(["lis_length", "longest_increasing", "longest_climb"])
    strict = rng.random() < 0.5
    finder = "bisect_left" if strict else "bisect_right"
    reference = f"""
from bisect import bisect_left, bisect_right


def {function}(values: list) -> int:
    tails = []
    for value in values:
        index = {finder}(tails, value)
        if index == len(tails):
            tails.append(value)
        else:
            tails[index] = value
    return len(tails)
"""
    other = "bisect_right" if strict else "bisect_left"
    wrong_strictness = reference.replace(f"index = {finder}(", f"index = {other}(")
    step = "<" if strict else "<="
    contiguous = f"""
def {function}(values: list) -> int:
    best = run = 0
    previous = None
    for value in values:
        run = run + 1 if previous is not None and previous {step} value else 1
        best = max(best, run)
        previous = value
    return best
"""
    greedy = f"""
def {function}(values: list) -> int:
    if not values:
        return 0
    count, last = 1, values[0]
    for value in values[1:]:
        if last {step} value:
            count, last = count + 1, value
    return count
"""
    cases: list[Args] = [
        ([],),
        ([5],),
        ([3, 3, 3],),
        ([10, 9, 2, 5, 3, 7, 101, 18],),
        ([1, 3, 2, 3],),
        ([9, 1, 2, 3, 1, 4],),
        ([5, 4, 3, 2, 1],),
        ([2, 2, 1, 1, 3, 3],),
    ]
    for _ in range(5):
        cases.append(([rng.randint(0, 9) for _ in range(rng.randint(4, 14))],))
    kind = (
        "strictly increasing (each element greater than the one before)"
        if strict
        else ("non-decreasing (each element greater than or equal to the one before)")
    )
    return Problem(
        function=function,
        signature=f"def {function}(values: list[int]) -> int:",
        summary=f"Return the length of the longest {'strictly increasing' if strict else 'non-decreasing'} subsequence of values.",
        rules=(
            "A subsequence keeps elements in their original order but need not be contiguous: "
            "any elements may be skipped.",
            f"The subsequence must be {kind}.",
            "Return its length as an int; an empty list gives 0 and a single element gives 1.",
        ),
        reference=reference,
        bad={
            "wrong-strictness": wrong_strictness,
            "contiguous-run-only": contiguous,
            "greedy-from-first": greedy,
        },
        cases=tuple(cases),
        examples=(cases[3], cases[7]),
        tags=("dynamic-programming",),
    )


_COIN_SETS = ([1, 3, 4], [1, 5, 6, 9], [2, 5], [3, 7], [1, 7, 10], [4, 5, 11], [1, 6, 10])


def _coins(rng: random.Random) -> Problem:
    function = rng.choice(["min_coins", "fewest_coins", "coin_change"])
    miss = rng.choice([-1, None])
    returns = "int" if miss == -1 else "int | None"
    reference = f"""
def {function}(coins: list, amount: int):
    best = [0] + [None] * amount
    for total in range(1, amount + 1):
        for coin in coins:
            if coin <= total and best[total - coin] is not None:
                candidate = best[total - coin] + 1
                if best[total] is None or candidate < best[total]:
                    best[total] = candidate
    return best[amount] if best[amount] is not None else {miss!r}
"""
    greedy = f"""
def {function}(coins: list, amount: int):
    count = 0
    for coin in sorted(coins, reverse=True):
        count += amount // coin
        amount %= coin
    return count if amount == 0 else {miss!r}
"""
    once_each = f"""
def {function}(coins: list, amount: int):
    best = [0] + [None] * amount
    for coin in coins:
        for total in range(amount, coin - 1, -1):
            if best[total - coin] is not None:
                candidate = best[total - coin] + 1
                if best[total] is None or candidate < best[total]:
                    best[total] = candidate
    return best[amount] if best[amount] is not None else {miss!r}
"""
    sentinel = f"""
def {function}(coins: list, amount: int):
    best = [0] + [amount + 1] * amount
    for total in range(1, amount + 1):
        for coin in coins:
            if coin <= total:
                best[total] = min(best[total], best[total - coin] + 1)
    return best[amount]
"""
    coins = list(rng.choice(_COIN_SETS))
    rng.shuffle(coins)
    cases: list[Args] = [
        ([1, 3, 4], 6),
        ([5, 3], 9),
        ([2], 3),
        ([1], 0),
        ([7, 3], 0),
        ([1, 2, 5], 11),
        ([4, 1, 3], 10),
        (coins, 0),
        ([5, 3], 7),
        ([6, 4], 9),
    ]
    for _ in range(5):
        cases.append((coins, rng.randint(1, 40)))
    return Problem(
        function=function,
        signature=f"def {function}(coins: list[int], amount: int) -> {returns}:",
        summary="Return the fewest coins that add up exactly to amount, using any number of each coin.",
        rules=(
            "coins holds distinct positive denominations in any order; each may be used any "
            "number of times. amount is a non-negative int.",
            "Return the minimum number of coins whose values sum exactly to amount.",
            "An amount of 0 needs 0 coins.",
            f"If no combination reaches amount exactly, return {miss!r}.",
        ),
        reference=reference,
        bad={
            "greedy-largest-first": greedy,
            "each-coin-once": once_each,
            "sentinel-leaks": sentinel,
        },
        cases=tuple(cases),
        examples=(cases[0], cases[2], cases[5]),
        tags=("dynamic-programming",),
    )


def _grid(rng: random.Random) -> Problem:
    function = rng.choice(["shortest_path_length", "grid_steps", "min_moves"])
    wall = rng.choice(["#", "X", "@"])
    miss = rng.choice([-1, None])
    returns = "int" if miss == -1 else "int | None"
    reference = f"""
from collections import deque


def {function}(grid: list) -> int:
    cells = {{(r, c): ch for r, row in enumerate(grid) for c, ch in enumerate(row)}}
    start = next(pos for pos, ch in cells.items() if ch == "S")
    seen = {{start}}
    queue = deque([(start, 0)])
    while queue:
        (r, c), steps = queue.popleft()
        if cells[(r, c)] == "E":
            return steps
        for dr, dc in ((1, 0), (0, 1), (-1, 0), (0, -1)):
            nxt = (r + dr, c + dc)
            if nxt in cells and cells[nxt] != {wall!r} and nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, steps + 1))
    return {miss!r}
"""
    diagonal = reference.replace(
        "((1, 0), (0, 1), (-1, 0), (0, -1))",
        "((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))",
    )
    dfs = reference.replace("queue.popleft()", "queue.pop()")
    counts_cells = reference.replace("queue = deque([(start, 0)])", "queue = deque([(start, 1)])")
    o = "."
    cases: list[Args] = [
        (["SE"],),
        (["S..", "...", "..E"],),
        (["S.E", "...", "..."],),
        ([f"S{wall}", f"{wall}E"],),
        ([f"S.{wall}E"],),
        ([f"S{o}{o}{o}", f"{wall}{wall}{wall}{o}", f"E{o}{o}{o}"],),
        ([f"S{o}{wall}{o}", f"{o}{o}{wall}{o}", f"{wall}{o}{o}E"],),
        (["E", ".", "S"],),
        (["S.", "..", "E."],),
    ]
    for _ in range(5):
        rows, cols = rng.randint(2, 6), rng.randint(2, 7)
        board = [[wall if rng.random() < 0.3 else o for _ in range(cols)] for _ in range(rows)]
        spots = rng.sample([(r, c) for r in range(rows) for c in range(cols)], 2)
        board[spots[0][0]][spots[0][1]] = "S"
        board[spots[1][0]][spots[1][1]] = "E"
        cases.append((["".join(row) for row in board],))
    return Problem(
        function=function,
        signature=f"def {function}(grid: list[str]) -> {returns}:",
        summary="Return the fewest moves needed to walk from S to E through a grid with walls.",
        rules=(
            f"grid is a non-empty list of equal-length strings. '.' is open floor, {wall!r} is a "
            "wall, and there is exactly one 'S' (start) and exactly one 'E' (end), both walkable.",
            "A move goes one cell up, down, left or right (never diagonally), stays inside the "
            "grid and never enters a wall.",
            "Return the minimum number of moves from S to E (the start cell itself is not counted).",
            f"If E cannot be reached, return {miss!r}.",
        ),
        reference=reference,
        bad={
            "diagonal-moves": diagonal,
            "depth-first-not-shortest": dfs,
            "counts-cells-not-moves": counts_cells,
        },
        cases=tuple(cases),
        examples=(cases[1], cases[5]),
        tags=("graphs", "bfs"),
    )


_TASKS = ("build", "test", "lint", "deploy", "fetch", "docs", "pack", "sign", "audit", "bench")


def _topo(rng: random.Random) -> Problem:
    function = rng.choice(["task_order", "topological_order", "build_order"])
    before = rng.random() < 0.5
    edge = "first, second = a, b" if before else "first, second = b, a"
    reference = f"""
import heapq


def {function}(tasks: list, deps: list):
    indegree = {{task: 0 for task in tasks}}
    after = {{task: [] for task in tasks}}
    for a, b in deps:
        {edge}
        after[first].append(second)
        indegree[second] += 1
    ready = [task for task in tasks if indegree[task] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        task = heapq.heappop(ready)
        order.append(task)
        for nxt in after[task]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, nxt)
    return order if len(order) == len(tasks) else None
"""
    fifo = (
        reference.replace("import heapq", "from collections import deque")
        .replace("    heapq.heapify(ready)\n", "    ready = deque(ready)\n")
        .replace("heapq.heappop(ready)", "ready.popleft()")
        .replace("heapq.heappush(ready, nxt)", "ready.append(nxt)")
    )
    partial = reference.replace(
        "return order if len(order) == len(tasks) else None", "return order"
    )
    flipped_edge = "first, second = b, a" if before else "first, second = a, b"
    reversed_deps = reference.replace(edge, flipped_edge)
    cases: list[Args] = [
        ([], []),
        (["pack", "audit"], []),
        (["c", "b", "a"], [["c", "a"] if before else ["a", "c"]]),
        (["x", "y"], [["x", "y"], ["y", "x"]]),
        (["solo", "loop"], [["loop", "loop"]]),
        (["d", "c", "b", "a"], [["d", "b"], ["c", "a"]] if before else [["b", "d"], ["a", "c"]]),
    ]
    for index in range(6):
        names = rng.sample(_TASKS, rng.randint(3, 7))
        order = names[:]
        rng.shuffle(order)
        pairs = []
        for _ in range(rng.randint(1, len(names))):
            i, j = sorted(rng.sample(range(len(order)), 2))
            pairs.append([order[i], order[j]] if before else [order[j], order[i]])
        if index % 3 == 2:
            i, j = sorted(rng.sample(range(len(order)), 2))
            pairs.append([order[j], order[i]] if before else [order[i], order[j]])
            pairs.append([order[i], order[j]] if before else [order[j], order[i]])
        cases.append((names, pairs))
    meaning = (
        "a pair [a, b] in deps means a must come before b"
        if before
        else "a pair [a, b] in deps means a depends on b, so b must come before a"
    )
    return Problem(
        function=function,
        signature=f"def {function}(tasks: list[str], deps: list[list[str]]) -> list[str] | None:",
        summary="Order tasks so that every dependency is respected, choosing alphabetically on ties.",
        rules=(
            f"tasks holds distinct task names; {meaning}. Both names of a pair are in tasks; a "
            "pair may repeat.",
            "Return a list containing every task once, in an order satisfying every pair.",
            "Among all valid orders return the lexicographically smallest one: at each position "
            "place the alphabetically smallest task whose prerequisites are all already placed.",
            "If the pairs contain a cycle (including a task depending on itself), return None.",
            "No tasks gives [].",
        ),
        reference=reference,
        bad={
            "input-order-ties": fifo,
            "cycle-returns-partial": partial,
            "dependency-direction-reversed": reversed_deps,
        },
        cases=tuple(cases),
        examples=(cases[2], cases[3]),
        tags=("graphs", "topological-sort"),
    )


def _dijkstra(rng: random.Random) -> Problem:
    function = rng.choice(["shortest_distances", "travel_costs", "route_costs"])
    directed = rng.random() < 0.5
    miss = rng.choice([-1, None])
    backward = "" if directed else "\n        adjacency[v].append((u, w))"
    reference = f"""
import heapq


def {function}(n: int, edges: list, source: int) -> list:
    adjacency = [[] for _ in range(n)]
    for u, v, w in edges:
        adjacency[u].append((v, w)){backward}
    dist = [None] * n
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if d > dist[node]:
            continue
        for nxt, w in adjacency[node]:
            if dist[nxt] is None or d + w < dist[nxt]:
                dist[nxt] = d + w
                heapq.heappush(heap, (d + w, nxt))
    return [{miss!r} if d is None else d for d in dist]
"""
    if directed:
        direction = reference.replace(
            "adjacency[u].append((v, w))",
            "adjacency[u].append((v, w))\n        adjacency[v].append((u, w))",
        )
    else:
        direction = reference.replace("\n        adjacency[v].append((u, w))", "")
    hops = f"""
from collections import deque


def {function}(n: int, edges: list, source: int) -> list:
    adjacency = [[] for _ in range(n)]
    for u, v, w in edges:
        adjacency[u].append((v, w)){backward}
    dist = [None] * n
    dist[source] = 0
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for nxt, w in adjacency[node]:
            if dist[nxt] is None:
                dist[nxt] = dist[node] + w
                queue.append(nxt)
    return [{miss!r} if d is None else d for d in dist]
"""
    overwrite_back = "" if directed else "\n        adjacency[v][u] = w"
    overwrite = reference.replace(
        "    adjacency = [[] for _ in range(n)]\n    for u, v, w in edges:\n"
        f"        adjacency[u].append((v, w)){backward}",
        "    adjacency = [{} for _ in range(n)]\n    for u, v, w in edges:\n"
        f"        adjacency[u][v] = w{overwrite_back}",
    ).replace("in adjacency[node]:", "in adjacency[node].items():")
    cases: list[Args] = [
        (1, [], 0),
        (3, [[0, 1, 10], [0, 2, 1], [2, 1, 2]], 0),
        (2, [[0, 1, 2], [0, 1, 5]], 0),
        (2, [[1, 0, 4]], 0),
        (4, [[0, 1, 1], [1, 2, 1]], 0),
        (4, [[0, 1, 7], [0, 2, 1], [2, 3, 1], [3, 1, 1], [1, 0, 3]], 1),
        (3, [[0, 1, 0], [1, 2, 0]], 0),
        (3, [[2, 1, 3], [1, 0, 3], [0, 2, 9]], 2),
        (4, [[0, 3, 20], [0, 1, 2], [1, 2, 2], [2, 3, 2]], 0),
    ]
    for _ in range(5):
        n = rng.randint(2, 7)
        edges = [
            [rng.randrange(n), rng.randrange(n), rng.randint(0, 9)]
            for _ in range(rng.randint(1, 2 * n))
        ]
        cases.append((n, edges, rng.randrange(n)))
    kind = (
        "directed: [u, v, w] can be travelled only from u to v"
        if directed
        else "undirected: [u, v, w] can be travelled in both directions"
    )
    return Problem(
        function=function,
        signature=f"def {function}(n: int, edges: list[list[int]], source: int) -> list:",
        summary="Return the cheapest travel cost from source to every node of a weighted graph.",
        rules=(
            "Nodes are the ints 0..n-1 (n >= 1) and 0 <= source < n.",
            f"Each edge is [u, v, w] with a non-negative int cost w; edges are {kind}.",
            "There may be several edges between the same nodes, and edges from a node to itself.",
            "Return a list of length n whose item i is the minimum total cost of a path from "
            f"source to i (0 for source itself), or {miss!r} when i cannot be reached.",
        ),
        reference=reference,
        bad={
            "fewest-edges-path": hops,
            "edges-treated-as-undirected" if directed else "edges-treated-as-directed": direction,
            "parallel-edge-overwritten": overwrite,
        },
        cases=tuple(cases),
        examples=(cases[1], cases[3]),
        tags=("graphs", "dijkstra"),
    )


TEMPLATES: tuple[Template, ...] = (
    Template(
        id="insertion-point", category="algorithms", difficulty="easy", build=_insertion_point
    ),
    Template(
        id="longest-increasing-subsequence", category="algorithms", difficulty="medium", build=_lis
    ),
    Template(id="min-coins", category="algorithms", difficulty="medium", build=_coins),
    Template(id="grid-shortest-path", category="algorithms", difficulty="medium", build=_grid),
    Template(id="topological-order", category="algorithms", difficulty="hard", build=_topo),
    Template(
        id="weighted-shortest-paths", category="algorithms", difficulty="hard", build=_dijkstra
    ),
)
