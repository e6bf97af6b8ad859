"""Start a command with every signal at its default and none blocked, whatever its parent held.
Stdlib only; run inside a bubblewrap sandbox as ``python -I -S -c`` with the command as its
arguments, just before the command itself.

An ignored or blocked signal stays so through ``execve``: a host started under ``nohup``
(SIGHUP ignored), or by a test runner whose workers ignore some signal, would hand that to every
job it starts, and a job's behaviour would depend on its host. The C library keeps two signals
(32 and 33) for itself and refuses to change them, so those are reset by the kernel's call.
"""

import os
import signal
import sys

_SYS_RT_SIGACTION, _SIGSET_BYTES = 13, 8
_UNCATCHABLE = (signal.SIGKILL, signal.SIGSTOP)
_SOURCE: "list[str]" = []
"""This module's text, once read (the host's side)."""


def default_signals() -> None:
    """Unblock every signal and set every ignored one back to its default."""
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
    ignored = _ignored()
    for number in range(1, signal.NSIG):
        if number in _UNCATCHABLE or not ignored >> (number - 1) & 1:
            continue
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):  # the C library's own: to the kernel directly
            _kernel_default(number)


def _ignored() -> int:
    """The mask of signals this process ignores, as ``/proc`` shows it."""
    with open("/proc/self/status", "rb") as status:  # noqa: PTH123 - no pathlib to import
        for line in status:
            if line.startswith(b"SigIgn:"):
                return int(line.split()[1], 16)
    return 0


def _kernel_default(number: int) -> None:
    import ctypes  # noqa: PLC0415 - only when the host ignored one of the C library's signals

    libc = ctypes.CDLL(None, use_errno=True)
    action = ctypes.create_string_buffer(32)  # handler SIG_DFL (0), no flags, restorer or mask
    if libc.syscall(_SYS_RT_SIGACTION, number, action, None, _SIGSET_BYTES) != 0:
        raise OSError(ctypes.get_errno(), f"rt_sigaction({number})")


def prefix(python: str) -> "list[str]":
    """The command that runs this module in a sandbox, to be followed by the job's command."""
    if not _SOURCE:
        from importlib.resources import files  # noqa: PLC0415 - the host's side only

        _SOURCE.append(files("assay.sandbox").joinpath("_fresh_start.py").read_text("utf-8"))
    return [python, "-I", "-S", "-c", _SOURCE[0]]


def host_holds_signals() -> bool:
    """Whether a process this thread starts now would hold a signal ignored or blocked, beyond
    SIGPIPE and SIGXFSZ (which Python ignores and restores to default in the processes it
    starts)."""
    restored = (1 << (signal.SIGPIPE - 1)) | (1 << (signal.SIGXFSZ - 1))
    return bool(_ignored() & ~restored) or bool(signal.pthread_sigmask(signal.SIG_BLOCK, ()))


def _main() -> None:
    default_signals()
    command = sys.argv[1:]
    try:
        os.execvp(command[0], command)  # noqa: S606 - the job's command, as bwrap runs it
    except OSError as exc:
        missing = isinstance(exc, FileNotFoundError)
        reason = "command not found" if missing else exc.strerror
        os.write(2, f"{command[0]}: {reason}\n".encode(errors="replace"))
        os._exit(127 if missing else 126)


if __name__ == "__main__":
    _main()
