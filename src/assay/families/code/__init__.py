"""The ``code`` family: implement one Python function.

Task layout: ``task.toml`` with a ``[code]`` table (``function``, optional ``entrypoint``,
``compare``, ``float_tolerance``, ``checker``); ``hidden/cases.json`` with the inputs and the
reference's outputs; ``solutions/*/solution.py``. A candidate runs inside the sandbox on the case
inputs only; its outputs come back as JSON text and are compared in the trusted process.
"""

from assay.families.code.config import Case, CodeConfig
from assay.families.code.family import CodeFamily, run_cases

__all__ = ["Case", "CodeConfig", "CodeFamily", "run_cases"]
