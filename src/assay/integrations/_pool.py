"""The warm pool the integrations share when they are not given a sandbox."""

from __future__ import annotations

import atexit
import threading

from assay.sandbox.protocol import Sandbox

_pool: Sandbox | None = None
_pool_lock = threading.Lock()


def shared_sandbox() -> Sandbox:
    """The process's warm pool for environments not given a sandbox, made on first use."""
    global _pool  # noqa: PLW0603 - one pool per process, shared by its environments
    with _pool_lock:
        if _pool is None:
            from assay.families import harness_code  # noqa: PLC0415
            from assay.sandbox import PoolSandbox  # noqa: PLC0415

            pool = PoolSandbox(trusted_code=harness_code())
            atexit.register(pool.close)
            _pool = pool
        return _pool
