"""Tries to take the emulator down with oversized requests, then exits cleanly."""

import contextlib
import os
import socket
import urllib.parse

endpoint = urllib.parse.urlsplit(os.environ.get("AWS_ENDPOINT_URL", "http://127.0.0.1:1"))
header = b"PUT /bucket/key HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n"
for _ in range(3):
    with contextlib.suppress(OSError):
        connection = socket.create_connection((endpoint.hostname, endpoint.port), timeout=5)
        connection.sendall(header)
        connection.sendall(b"\0" * 2**20)
        connection.close()
os._exit(0)
