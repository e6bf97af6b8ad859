"""Runs agent code in the sandbox with the AWS SDK pointed at the episode's emulator.

Executed as ``python -I -S -c <this file's text> SCRIPT`` inside a sandbox whose only way out is
the emulator's Unix socket, bound in at ``/run/emulator/aws.sock``. The sandbox has a network
namespace of its own with nothing but loopback, so a forwarder from a loopback TCP port to that
socket gives the SDK an ordinary endpoint (``AWS_ENDPOINT_URL``) and reaches nothing else.

Standard library only, and trusted by nobody: it shares its process with the agent's code, which
may replace or stop anything here. The verdict reads the emulator, not this process.
"""

import contextlib
import os
import runpy
import socket
import sys
import threading
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up
    from socket import socket as Socket  # noqa: N812 - the class, beside the module

SOCKET = "/run/emulator/aws.sock"
PACKAGES = "/opt/assay/packages"
BYTECODE = "/run/pycache"
CHUNK = 65536


def _pump(source: "Socket", sink: "Socket") -> None:
    try:
        while True:
            data = source.recv(CHUNK)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    for end in (source, sink):
        with contextlib.suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)


def _forward(client: "Socket") -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(SOCKET)
    except OSError:
        client.close()
        upstream.close()
        return
    threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
    _pump(upstream, client)
    client.close()
    upstream.close()


def _accept(listener: "Socket") -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_forward, args=(client,), daemon=True).start()


def _listen() -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    threading.Thread(target=_accept, args=(listener,), daemon=True).start()
    port: int = listener.getsockname()[1]
    return port


def main() -> None:
    if os.path.isdir(BYTECODE):  # noqa: PTH112 - no pathlib import at start-up
        sys.pycache_prefix = BYTECODE
    script = sys.argv[1]
    port = _listen()
    os.environ.update(
        AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",  # noqa: S106 - the emulator's, not a secret
        AWS_DEFAULT_REGION="us-east-1",
        AWS_REGION="us-east-1",
        AWS_EC2_METADATA_DISABLED="true",
        AWS_CONFIG_FILE="/dev/null",
        AWS_SHARED_CREDENTIALS_FILE="/dev/null",
    )
    sys.path[:0] = [os.getcwd(), PACKAGES]  # noqa: PTH109 - no pathlib import at start-up
    sys.argv = [script]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        code = stop.code
        if code is None or isinstance(code, int):
            sys.stdout.flush()
            os._exit(code or 0)
        sys.stderr.write(f"{code}\n")
        sys.stdout.flush()
        os._exit(1)
    except BaseException:  # noqa: BLE001 - the agent's error is reported, not raised
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


main()
