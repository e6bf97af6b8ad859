"""Templates for data-structure tasks: nested dicts, grouping, intervals, disjoint sets, caches."""

from __future__ import annotations

import random

from assay.families.code.templates._model import Args, Problem, Template

_KEYS = ("alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta")
_NAMES = ("ana", "bo", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo", "kai", "lu")


def _leaf(rng: random.Random) -> object:
    kind = rng.randrange(5)
    if kind == 0:
        return rng.randint(-9, 99)
    if kind == 1:
        return rng.choice(_NAMES)
    if kind == 2:
        return [rng.randint(0, 9) for _ in range(rng.randint(0, 3))]
    if kind == 3:
        return rng.choice([True, False, None])
    return {}


def _nested(rng: random.Random, depth: int, keys: tuple[str, ...] = _KEYS) -> dict[str, object]:
    out: dict[str, object] = {}
    for key in rng.sample(keys, rng.randint(1, 4)):
        if depth > 0 and rng.random() < 0.45:
            out[key] = _nested(rng, depth - 1, keys)
        else:
            out[key] = _leaf(rng)
    return out


def _flatten(rng: random.Random) -> Problem:
    function = rng.choice(["flatten_dict", "flatten_keys", "flatten_nested"])
    sep = rng.choice([".", "/", ":", "__"])
    reference = f"""
def {function}(data: dict) -> dict:
    out = {{}}

    def walk(node, prefix):
        for key, value in node.items():
            path = key if prefix is None else prefix + {sep!r} + key
            if isinstance(value, dict) and value:
                walk(value, path)
            else:
                out[path] = value

    walk(data, None)
    return out
"""
    drops_empty = reference.replace(
        "isinstance(value, dict) and value:", "isinstance(value, dict):"
    )
    lists_indexed = reference.replace(
        "            else:\n                out[path] = value",
        "            elif isinstance(value, list):\n"
        "                for index, item in enumerate(value):\n"
        f"                    out[path + {sep!r} + str(index)] = item\n"
        "            else:\n                out[path] = value",
    )
    one_level = f"""
def {function}(data: dict) -> dict:
    out = {{}}
    for key, value in data.items():
        if isinstance(value, dict) and value:
            for inner, item in value.items():
                out[key + {sep!r} + inner] = item
        else:
            out[key] = value
    return out
"""
    cases: list[Args] = [
        ({},),
        ({"alpha": {}},),
        ({"alpha": {"beta": {"gamma": 1}}},),
        ({"alpha": [1, 2], "beta": {"gamma": [3], "delta": "x"}},),
        ({"zeta": None, "eta": {"theta": True, "eps": {}}},),
        ({"alpha": 1, "beta": {"alpha": 2, "beta": {"alpha": 3, "beta": []}}},),
    ]
    cases += [(_nested(rng, 3),) for _ in range(5)]
    return Problem(
        function=function,
        signature=f"def {function}(data: dict) -> dict:",
        summary=f"Flatten a nested dict into a single-level dict whose keys are paths joined by {sep!r}.",
        rules=(
            "All keys are strings. A value that is a non-empty dict is descended into; every other "
            "value (numbers, strings, booleans, None, lists) is a leaf and is kept as it is.",
            f"The key of a leaf in the result is the list of keys from the top down to it, joined "
            f"by {sep!r}; a top-level leaf keeps its own key.",
            "Lists are leaves: they are never split into elements or indexed.",
            "An empty nested dict is a leaf too: its path maps to {} in the result.",
            "An empty input returns {}. Key order in the result does not matter.",
        ),
        reference=reference,
        bad={
            "empty-dict-dropped": drops_empty,
            "lists-flattened-by-index": lists_indexed,
            "one-level-only": one_level,
        },
        cases=tuple(cases),
        examples=(cases[3], cases[4]),
        tags=("dicts", "recursion"),
    )


def _group(rng: random.Random) -> Problem:
    function = rng.choice(["group_by_field", "group_records", "bucket_records"])
    group, values = rng.choice(
        [
            ("team", ["red", "blue", "green", "gold", "grey"]),
            ("city", ["oslo", "lima", "rome", "kyiv", "baku"]),
            ("category", ["tools", "books", "games", "food", "misc"]),
            ("dept", ["sales", "ops", "legal", "hr", "it"]),
        ]
    )
    name = rng.choice(["name", "owner", "label"])
    unique = rng.random() < 0.5
    collect = "sorted(set(members))" if unique else "sorted(members)"
    reference = f"""
def {function}(records: list) -> dict:
    groups = {{}}
    for record in records:
        if {group!r} not in record:
            continue
        groups.setdefault(record[{group!r}], []).append(record[{name!r}])
    return {{key: {collect} for key, members in groups.items()}}
"""
    unsorted = reference.replace(collect, "list(dict.fromkeys(members))" if unique else "members")
    crashes = reference.replace(f"        if {group!r} not in record:\n            continue\n", "")
    other = "sorted(members)" if unique else "sorted(set(members))"
    dup_label = "duplicates-kept" if unique else "duplicates-dropped"

    def record(member: str, grp: str | None) -> dict[str, object]:
        out: dict[str, object] = {name: member}
        if grp is not None:
            out[group] = grp
        return out

    cases: list[Args] = [
        ([],),
        ([record("bo", values[0]), record("ana", values[0]), record("cy", values[1])],),
        ([record("ana", None), record("bo", values[2])],),
        ([record("jo", values[1]), record("ana", values[1]), record("jo", values[1])],),
        ([record("cy", None), {name: "gus", group: values[4], "qty": 3}],),
        ([record("lu", ""), record("eli", ""), record("fay", values[3])],),
        (
            [
                record("kai", values[2]),
                record("bo", values[2]),
                record("kai", values[2]),
                record("kai", values[0]),
            ],
        ),
    ]
    for _ in range(5):
        draws = [
            record(rng.choice(_NAMES[:8]), None if rng.random() < 0.15 else rng.choice(values))
            for _ in range(rng.randint(3, 10))
        ]
        cases.append((draws,))
    duplicates = (
        "listed once each" if unique else "kept: a name is listed once for every record carrying it"
    )
    return Problem(
        function=function,
        signature=f"def {function}(records: list[dict]) -> dict[str, list[str]]:",
        summary=f"Group records by their {group!r} field, collecting the {name!r} of each record.",
        rules=(
            f"Each record is a dict with a string {name!r} field and usually a string {group!r} "
            "field; other fields may be present and are ignored.",
            f"Records without a {group!r} field are skipped. The empty string is a valid group.",
            f"Return a dict mapping each {group!r} value that occurs to the list of {name!r} "
            "values of its records, sorted in ascending string order.",
            f"Within a group, duplicate {name!r} values are {duplicates}.",
            "An empty list of records (or one where every record is skipped) returns {}.",
        ),
        reference=reference,
        bad={
            "input-order-kept": unsorted,
            "missing-field-crash": crashes,
            dup_label: reference.replace(collect, other),
        },
        cases=tuple(cases),
        examples=(cases[1], cases[3]),
        tags=("dicts", "grouping"),
    )


def _deep_merge(rng: random.Random) -> Problem:
    function = rng.choice(["deep_merge", "merge_config", "merge_nested"])
    first, second = rng.choice([("base", "override"), ("left", "right"), ("defaults", "overrides")])
    concat = rng.random() < 0.5
    list_rule = (
        "result[key] = current + copy.deepcopy(value)"
        if concat
        else ("result[key] = copy.deepcopy(value)")
    )
    reference = f"""
import copy


def {function}({first}: dict, {second}: dict) -> dict:
    result = copy.deepcopy({first})
    for key, value in {second}.items():
        current = result.get(key)
        if key in result and isinstance(current, dict) and isinstance(value, dict):
            result[key] = {function}(current, value)
        elif key in result and isinstance(current, list) and isinstance(value, list):
            {list_rule}
        else:
            result[key] = copy.deepcopy(value)
    return result
"""
    other_rule = (
        "result[key] = copy.deepcopy(value)"
        if concat
        else ("result[key] = current + copy.deepcopy(value)")
    )
    shallow = f"""
def {function}({first}: dict, {second}: dict) -> dict:
    return {{**{first}, **{second}}}
"""
    first_wins = reference.replace(
        "        else:\n            result[key] = copy.deepcopy(value)",
        "        elif key not in result:\n            result[key] = copy.deepcopy(value)",
    )
    in_place = reference.replace(f"result = copy.deepcopy({first})", f"result = {first}")
    shares = reference.replace(f"copy.deepcopy({first})", f"dict({first})").replace(
        "copy.deepcopy(value)", "value"
    )
    cases: list[Args] = [
        ({}, {}),
        ({"alpha": 1}, {}),
        ({}, {"alpha": {"beta": 1}}),
        ({"alpha": {"x": 1, "y": 2}}, {"alpha": {"y": 3}}),
        ({"alpha": [1, 2]}, {"alpha": [3]}),
        ({"alpha": {"beta": 1}, "gamma": 0}, {"alpha": 5, "gamma": {"delta": None}}),
        ({"alpha": 1, "beta": "x"}, {"alpha": 2}),
        ({"a": {"b": {"c": [1], "d": 1}}}, {"a": {"b": {"c": [2], "e": 2}}}),
    ]
    pool = _KEYS[:4]
    for _ in range(4):
        cases.append((_nested(rng, 2, pool), _nested(rng, 2, pool)))
    list_text = (
        f"if both are lists, the result is the {first} list followed by the {second} list"
        if concat
        else f"if both are lists, the {second} list replaces the {first} list (no concatenation)"
    )
    return Problem(
        function=function,
        signature=f"def {function}({first}: dict, {second}: dict) -> dict:",
        summary=f"Deep-merge two nested dicts, with {second!r} taking precedence over {first!r}.",
        rules=(
            "A key present in only one of the dicts is copied into the result with its value.",
            f"For a key present in both: if both values are dicts, merge them recursively by these "
            f"same rules; {list_text}; otherwise the {second} value wins, even when the two "
            "values have different types (e.g. a dict and an int).",
            "Neither input may be modified, by the call or later through its result: return "
            "a new dict that shares no dict or list with the inputs. Key order does not matter.",
        ),
        reference=reference,
        bad={
            "shallow-merge": shallow,
            f"merges-into-{first}": in_place,
            "shares-nested-values": shares,
            "lists-concatenated" if not concat else "lists-replaced": reference.replace(
                list_rule, other_rule
            ),
            f"{first}-wins-conflicts": first_wins,
        },
        cases=tuple(cases),
        examples=(cases[3], cases[4], cases[5]),
        inputs="unshared",
        tags=("dicts", "recursion"),
    )


def _intervals(rng: random.Random) -> Problem:
    function = rng.choice(["merge_intervals", "merge_ranges", "coalesce_ranges"])
    adjacent = rng.random() < 0.5
    gap = 1 if adjacent else 0
    reference = f"""
def {function}(intervals: list) -> list:
    merged = []
    for start, end in sorted([list(item) for item in intervals]):
        if merged and start <= merged[-1][1] + {gap}:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged
"""
    touching = reference.replace(
        f"start <= merged[-1][1] + {gap}", f"start < merged[-1][1] + {gap}"
    )
    presorted = reference.replace(
        "sorted([list(item) for item in intervals])", "[list(item) for item in intervals]"
    )
    shrinks = reference.replace("max(merged[-1][1], end)", "end")
    cases: list[Args] = [
        ([],),
        ([[1, 3]],),
        ([[1, 3], [2, 6], [8, 10], [15, 18]],),
        ([[8, 9], [1, 2], [5, 6]],),
        ([[1, 10], [2, 3], [12, 13]],),
        ([[1, 3], [3, 5]],),
        ([[1, 3], [4, 5], [7, 7]],),
        ([[4, 4], [4, 4], [0, 1]],),
        ([[10, 12], [5, 9], [13, 13]],),
        ([[6, 8], [2, 6]],),
    ]
    for _ in range(4):
        draws = []
        for _ in range(rng.randint(2, 7)):
            start = rng.randint(0, 30)
            draws.append([start, start + rng.randint(0, 6)])
        cases.append((draws,))
    merge_rule = (
        "Two intervals merge when they overlap, share an endpoint, or are adjacent integers "
        "with nothing between them: [1, 3] and [4, 5] become [1, 5]; [1, 3] and [5, 6] stay apart."
        if adjacent
        else "Two intervals merge when they share at least one point, including touching "
        "endpoints: [1, 3] and [3, 5] become [1, 5]; [1, 3] and [4, 5] stay apart."
    )
    return Problem(
        function=function,
        signature=f"def {function}(intervals: list[list[int]]) -> list[list[int]]:",
        summary="Merge a list of closed integer intervals into the fewest disjoint intervals.",
        rules=(
            "Each interval is [start, end] with start <= end; both ends are included.",
            "The input may be in any order and may contain duplicates or nested intervals.",
            merge_rule,
            "Merging repeats until no two intervals in the result would merge.",
            "Return the merged intervals as [start, end] lists sorted by start; [] for no input.",
        ),
        reference=reference,
        bad={
            "adjacent-kept-separate" if adjacent else "touching-kept-separate": touching,
            "input-assumed-sorted": presorted,
            "contained-interval-shrinks": shrinks,
        },
        cases=tuple(cases),
        examples=(cases[2], cases[5] if not adjacent else cases[6]),
        tags=("intervals", "sorting"),
    )


def _equivalence(rng: random.Random) -> Problem:
    function, items_name, pairs_name = rng.choice(
        [
            ("group_aliases", "names", "aliases"),
            ("connected_groups", "nodes", "links"),
            ("merge_accounts", "accounts", "same_owner"),
        ]
    )
    reference = f"""
def {function}({items_name}: list, {pairs_name}: list) -> list:
    parent = {{item: item for item in {items_name}}}

    def find(item):
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    for a, b in {pairs_name}:
        root_a, root_b = find(a), find(b)
        if root_a != root_b:
            parent[root_a] = root_b
    groups = {{}}
    for item in {items_name}:
        groups.setdefault(find(item), []).append(item)
    return [sorted(members) for members in groups.values()]
"""
    direct = f"""
def {function}({items_name}: list, {pairs_name}: list) -> list:
    label = {{item: item for item in {items_name}}}
    for a, b in {pairs_name}:
        label[b] = label[a]
    groups = {{}}
    for item in {items_name}:
        groups.setdefault(label[item], []).append(item)
    return [sorted(members) for members in groups.values()]
"""
    no_singletons = reference.replace(
        "for members in groups.values()]", "for members in groups.values() if len(members) > 1]"
    )
    unsorted = reference.replace("[sorted(members) for", "[members for")
    cases: list[Args] = [
        ([], []),
        (["kai"], []),
        (["bo", "ana"], [["bo", "ana"]]),
        (["ana", "bo", "cy", "dee"], [["ana", "bo"], ["cy", "ana"]]),
        (["ana", "bo", "cy", "dee", "eli"], [["ana", "bo"], ["cy", "dee"], ["bo", "dee"]]),
        (["hal", "gus", "fay"], [["hal", "hal"]]),
        (["cy", "bo", "ana"], [["ana", "bo"], ["bo", "cy"], ["cy", "ana"]]),
    ]
    for _ in range(5):
        items = rng.sample(_NAMES, rng.randint(2, 9))
        pairs = [rng.sample(items, 2) for _ in range(rng.randint(0, len(items)))]
        cases.append((items, pairs))
    return Problem(
        function=function,
        signature=f"def {function}({items_name}: list[str], {pairs_name}: list[list[str]]) -> list[list[str]]:",
        summary=f"Partition {items_name} into groups connected, directly or through others, by {pairs_name}.",
        rules=(
            f"{items_name} holds distinct strings; each pair in {pairs_name} is [a, b] with both "
            f"a and b in {items_name}, and means a and b belong to the same group.",
            "Grouping is transitive: if a is with b and b is with c, then a, b and c are one group.",
            f"Every element of {items_name} belongs to exactly one group; an element in no pair is "
            "a group of its own.",
            "Return a list of groups, each a list sorted in ascending string order. The groups "
            "themselves may be listed in any order.",
        ),
        reference=reference,
        bad={
            "no-transitive-merge": direct,
            "singletons-dropped": no_singletons,
            "members-unsorted": unsorted,
        },
        cases=tuple(cases),
        examples=(cases[3], cases[5]),
        compare="unordered",
        tags=("union-find", "graphs"),
    )


def _lru(rng: random.Random) -> Problem:
    function = rng.choice(["simulate_lru", "lru_trace", "run_lru_cache"])
    get, put = rng.choice([("get", "put"), ("read", "write"), ("lookup", "store")])
    miss = rng.choice([-1, None])
    reference = f"""
from collections import OrderedDict


def {function}(capacity: int, operations: list) -> list:
    cache = OrderedDict()
    results = []
    for operation in operations:
        if operation[0] == {get!r}:
            key = operation[1]
            if key in cache:
                cache.move_to_end(key)
                results.append(cache[key])
            else:
                results.append({miss!r})
        else:
            key, value = operation[1], operation[2]
            if key in cache:
                cache.move_to_end(key)
            cache[key] = value
            if len(cache) > capacity:
                cache.popitem(last=False)
    return results
"""
    get_stale = reference.replace(
        "                cache.move_to_end(key)\n                results", "                results"
    )
    put_stale = reference.replace(
        "            if key in cache:\n                cache.move_to_end(key)\n            cache[key]",
        "            cache[key]",
    )
    evicts_early = reference.replace(
        "            cache[key] = value\n            if len(cache) > capacity:\n"
        "                cache.popitem(last=False)",
        "            if len(cache) >= capacity:\n                cache.popitem(last=False)\n"
        "            cache[key] = value",
    )

    def g(key: str) -> list[object]:
        return [get, key]

    def p(key: str, value: int) -> list[object]:
        return [put, key, value]

    cases: list[Args] = [
        (1, []),
        (2, [g("a"), g("b")]),
        (2, [p("a", 1), p("b", 2), g("a"), p("c", 3), g("b"), g("a"), g("c")]),
        (2, [p("a", 1), p("b", 2), p("a", 10), p("c", 3), g("a"), g("b")]),
        (2, [p("a", 1), p("b", 2), p("b", 5), g("a"), g("b")]),
        (1, [p("x", 7), g("x"), p("y", 8), g("x"), g("y")]),
        (2, [p("a", 1), p("b", 2), g("a"), p("c", 3), g("a"), g("b"), g("c")]),
        (3, [p("a", 1), p("b", 2), p("c", 3), g("a"), g("b"), p("d", 4), g("c"), g("a"), g("d")]),
    ]
    for _ in range(6):
        capacity = rng.randint(1, 4)
        keys = rng.sample("abcdefgh", capacity + 2)
        ops: list[object] = []
        for _ in range(rng.randint(8, 20)):
            key = rng.choice(keys)
            ops.append(g(key) if rng.random() < 0.45 else p(key, rng.randint(0, 99)))
        cases.append((capacity, ops))
    return Problem(
        function=function,
        signature=f"def {function}(capacity: int, operations: list[list]) -> list:",
        summary="Simulate a least-recently-used cache over a list of operations and report every lookup.",
        rules=(
            f"capacity is at least 1. Each operation is either [{get!r}, key] or "
            f"[{put!r}, key, value], with string keys and int values.",
            f"{get!r} on a cached key yields its value and makes the key the most recently used; "
            f"on a missing key it yields {miss!r} and changes nothing.",
            f"{put!r} stores the value (replacing any old value) and makes the key the most "
            "recently used. Updating a key already cached never evicts anything.",
            f"When {put!r} adds a new key and the cache then holds more than capacity keys, the "
            "least recently used key is evicted.",
            f"Return the list of values yielded by the {get!r} operations, in order ([] if none).",
        ),
        reference=reference,
        bad={
            "lookup-does-not-refresh": get_stale,
            "update-does-not-refresh": put_stale,
            "evicts-on-update": evicts_early,
        },
        cases=tuple(cases),
        examples=(cases[2], cases[5]),
        tags=("cache", "simulation"),
    )


TEMPLATES: tuple[Template, ...] = (
    Template(id="flatten-dict", category="data-structures", difficulty="easy", build=_flatten),
    Template(id="group-records", category="data-structures", difficulty="easy", build=_group),
    Template(id="deep-merge", category="data-structures", difficulty="medium", build=_deep_merge),
    Template(
        id="merge-intervals", category="data-structures", difficulty="medium", build=_intervals
    ),
    Template(
        id="equivalence-groups", category="data-structures", difficulty="medium", build=_equivalence
    ),
    Template(id="lru-cache", category="data-structures", difficulty="hard", build=_lru),
)
