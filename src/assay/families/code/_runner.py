"""The harness that runs inside the sandbox. Stdlib only; passed to ``python -I -S -c``.

It reads a JSON job from stdin (function, entrypoint, case inputs, a nonce), imports the
candidate, calls it once per case and writes one ``<nonce><json>`` line per case to the original
stdout. Values are converted to plain JSON data here only to give a clear error for unplain
results; the trusted side re-parses the text and decides, so nothing here needs to be trusted.
Expected outputs are never sent here.
"""

import copy
import importlib.util
import json
import math
import os
import sys
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up
    from typing import Any


def _plain(value: "Any", depth: int = 0) -> object:
    kind = type(value)
    if depth > 100:
        raise TypeError("nested too deeply")
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        if not math.isfinite(value):
            raise TypeError("float is not finite")
        return value
    if kind in (list, tuple):
        return [_plain(item, depth + 1) for item in value]
    if kind is dict:
        if any(type(key) is not str for key in value):
            raise TypeError("dict keys must be str")
        return {key: _plain(item, depth + 1) for key, item in value.items()}
    raise TypeError(
        f"{kind.__name__} is not plain data (use int, float, str, bool, None, list, dict)"
    )


def _main() -> None:
    job = json.loads(sys.stdin.read())
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    nonce = job["nonce"]
    dumps = json.dumps

    def emit(record: dict[str, object]) -> None:
        out.write("\n" + nonce + dumps(record) + "\n")
        out.flush()

    sys.stdout = sys.stderr
    sys.path.append(os.getcwd())
    try:
        function = _load(job["entrypoint"], job["function"])
    except BaseException as exc:  # the candidate may raise anything, SystemExit included
        emit({"import_error": _describe(exc)})
        return
    for case in job["cases"]:
        try:
            value = _plain(function(*copy.deepcopy(case["args"])))
            text = dumps({"id": case["id"], "value": value}, allow_nan=False)
        except BaseException as exc:
            emit({"id": case["id"], "error": _describe(exc)})
            continue
        out.write("\n" + nonce + text + "\n")
        out.flush()


def _load(entrypoint: str, name: str) -> "Any":
    spec = importlib.util.spec_from_file_location("solution", entrypoint)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {entrypoint}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def _describe(exc: BaseException) -> str:
    lines = traceback.format_exception_only(type(exc), exc)
    return "".join(lines).strip()[-500:]


if __name__ == "__main__":
    _main()
