"""Network egress: nothing a job sends may reach the host or the outside world.

Each attack that can be observed on the host is observed there (a listener the test opens), and
a control runs the same code unsandboxed to show the listener would have seen it.
"""

from __future__ import annotations

import contextlib
import socket
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.errors import SandboxError
from assay.sandbox import Sandbox
from tests.sandbox.attacks._support import TOKEN, host_address, output, plain, py

pytestmark = pytest.mark.sandbox

CONNECT = """
import socket
for host, port in {targets!r}:
    try:
        conn = socket.create_connection((host, port), timeout=1)
        conn.sendall(b"{token}")
        print("CONNECTED", host, port, flush=True)
        conn.close()
    except OSError as exc:
        print("blocked", host, port, exc)
"""

SEND_UDP = """
import socket
for host, port in {targets!r}:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        sock.sendto({payload!r}, (host, port))
        print("SENT", host, port, flush=True)
    except OSError as exc:
        print("blocked", host, port, exc)
    finally:
        sock.close()
"""


@contextlib.contextmanager
def tcp_listener(address: str) -> Iterator[socket.socket]:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    server = socket.socket(family, socket.SOCK_STREAM)
    try:
        server.bind((address, 0))
        server.listen(16)
        server.settimeout(0.3)
        yield server
    finally:
        server.close()


@contextlib.contextmanager
def udp_listener(address: str) -> Iterator[socket.socket]:
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        server.bind((address, 0))
        server.settimeout(0.3)
        yield server
    finally:
        server.close()


def accepted(server: socket.socket) -> int:
    """How many connections are waiting on ``server``; each is accepted and closed."""
    count = 0
    while True:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            return count
        conn.close()
        count += 1


def received(server: socket.socket) -> list[bytes]:
    """Datagrams waiting on ``server``."""
    found = []
    while True:
        try:
            found.append(server.recv(65536))
        except TimeoutError:
            return found


def sent_off_host(stdout: str) -> list[str]:
    """Datagrams the job reports as sent somewhere other than its own loopback."""
    return [line for line in stdout.splitlines() if line.startswith("SENT") and " 127." not in line]


def dns_query(name: str) -> bytes:
    """A minimal DNS A query for ``name``."""
    header = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
    labels = b"".join(bytes([len(part)]) + part.encode() for part in name.split("."))
    return header + labels + b"\0" + struct.pack(">HH", 1, 1)


def host_resolvers() -> list[str]:
    """IPv4 name servers of the host, from its resolv.conf."""
    with contextlib.suppress(OSError):
        lines = Path("/etc/resolv.conf").read_text().splitlines()
        return [
            line.split()[1]
            for line in lines
            if line.startswith("nameserver") and len(line.split()) > 1 and "." in line.split()[1]
        ]
    return []


def test_tcp_to_an_external_address(backend: Sandbox) -> None:
    """The host's own non-loopback address (observed) and public addresses (reported)."""
    address = host_address()
    with tcp_listener("0.0.0.0") as server:  # noqa: S104 - reachable on every host address
        port = server.getsockname()[1]
        targets = [(address, port), ("1.1.1.1", 53), ("8.8.8.8", 443), ("192.0.2.1", 80)]
        result = py(backend, CONNECT.format(targets=targets, token=TOKEN))
        seen_from_sandbox = accepted(server)
        control = plain(CONNECT.format(targets=[(address, port)], token=TOKEN))
        seen_from_control = accepted(server)
    assert result.ok, result
    assert "CONNECTED" not in output(result)
    assert seen_from_sandbox == 0
    assert "CONNECTED" in control.stdout, control
    assert seen_from_control == 1


def test_udp_datagrams_do_not_leave(backend: Sandbox) -> None:
    address = host_address()
    payload = TOKEN.encode()
    with udp_listener("0.0.0.0") as server:  # noqa: S104 - reachable on every host address
        port = server.getsockname()[1]
        targets = [
            (address, port),
            ("127.0.0.1", port),
            ("255.255.255.255", port),
            ("8.8.8.8", 53),
        ]
        result = py(backend, SEND_UDP.format(targets=targets, payload=payload))
        from_sandbox = received(server)
        control = plain(SEND_UDP.format(targets=[(address, port)], payload=payload))
        from_control = received(server)
    assert result.ok, result
    assert sent_off_host(result.stdout) == []
    assert from_sandbox == []
    assert from_control == [payload], control


def test_dns_resolution_and_queries_fail(backend: Sandbox) -> None:
    """getaddrinfo fails, and raw queries reach neither the host resolver nor a host listener."""
    address = host_address()
    query = dns_query("pypi.org")
    with udp_listener("0.0.0.0") as fake_dns:  # noqa: S104 - reachable on every host address
        port = fake_dns.getsockname()[1]
        targets = [(address, port), ("127.0.0.1", port)] + [
            (resolver, 53) for resolver in host_resolvers()
        ]
        code = """
import socket
for name in ["pypi.org", "github.com", "example.com", "localhost.localdomain"]:
    try:
        print("RESOLVED", name, socket.getaddrinfo(name, 443), flush=True)
    except OSError as exc:
        print("unresolved", name, exc)
    try:
        print("RESOLVED", name, socket.gethostbyname(name), flush=True)
    except OSError as exc:
        print("unresolved", name, exc)
""" + SEND_UDP.format(targets=targets, payload=query)
        result = py(backend, code)
        from_sandbox = received(fake_dns)
        control = plain(SEND_UDP.format(targets=[(address, port)], payload=query))
        from_control = received(fake_dns)
    assert result.ok, result
    assert "RESOLVED" not in result.stdout
    assert sent_off_host(result.stdout) == []
    assert from_sandbox == []
    assert from_control == [query], control


def test_host_loopback_listener_is_unreachable(backend: Sandbox) -> None:
    with tcp_listener("127.0.0.1") as server:
        port = server.getsockname()[1]
        targets = [("127.0.0.1", port), ("localhost", port), ("127.0.0.2", port)]
        result = py(backend, CONNECT.format(targets=targets, token=TOKEN))
        seen_from_sandbox = accepted(server)
        control = plain(CONNECT.format(targets=[("127.0.0.1", port)], token=TOKEN))
        seen_from_control = accepted(server)
    assert result.ok, result
    assert "CONNECTED" not in output(result)
    assert seen_from_sandbox == 0
    assert seen_from_control == 1, control


def test_a_file_name_cannot_bring_the_hosts_network_in(backend: Sandbox) -> None:
    """The bubblewrap backend passes its options NUL-separated, file names among them: a file
    named ``x\\0--share-net`` (a name the protocol takes from an agent's submission) added an
    option that gave its job the host's network, and it reached a host loopback listener."""
    with tcp_listener("127.0.0.1") as server:
        port = server.getsockname()[1]
        code = CONNECT.format(targets=[("127.0.0.1", port)], token=TOKEN)
        for name in ("x\0--share-net", "x\0--share-net/y"):
            with pytest.raises(SandboxError, match="holds a NUL byte: rename the file"):
                py(backend, code, files={name: b""})
        seen_from_sandbox = accepted(server)
    assert seen_from_sandbox == 0


def test_host_abstract_unix_socket_is_unreachable(backend: Sandbox) -> None:
    name = f"\0{TOKEN}-abstract"
    code = f"""
import socket
try:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(1)
    conn.connect({name!r})
    conn.sendall(b"hello")
    print("CONNECTED", flush=True)
except OSError as exc:
    print("blocked", exc)
"""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(name)
        server.listen(4)
        server.settimeout(0.3)
        result = py(backend, code)
        seen_from_sandbox = accepted(server)
        control = plain(code)
        seen_from_control = accepted(server)
    finally:
        server.close()
    assert result.ok, result
    assert "CONNECTED" not in output(result)
    assert seen_from_sandbox == 0
    assert "CONNECTED" in control.stdout, control
    assert seen_from_control == 1


def test_raw_packet_and_netlink_sockets_are_refused(backend: Sandbox) -> None:
    """Raw IP, packet and netlink sockets would let a job forge traffic or read the host's
    network configuration."""
    code = """
import socket
attempts = {
    "raw-icmp": (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
    "raw-tcp": (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP),
    "raw-ipv6": (socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6),
    "packet": (socket.AF_PACKET, socket.SOCK_RAW, 0x0300),
    "packet-dgram": (socket.AF_PACKET, socket.SOCK_DGRAM, 0x0300),
    "netlink-route": (socket.AF_NETLINK, socket.SOCK_RAW, 0),
    "netlink-dgram": (socket.AF_NETLINK, socket.SOCK_DGRAM, 0),
    "netlink-audit": (socket.AF_NETLINK, socket.SOCK_RAW, 9),
}
for label, args in attempts.items():
    try:
        socket.socket(*args).close()
        print("OPENED", label, flush=True)
    except OSError as exc:
        print("refused", label, exc)
"""
    result = py(backend, code)
    assert result.ok, result
    assert "OPENED" not in result.stdout
    assert result.stdout.count("refused") == 8


def test_socket_families_are_an_allow_list(backend: Sandbox) -> None:
    """Only Unix, IPv4 and IPv6 sockets: vsock (whose ports a network namespace does not
    confine), the kernel crypto API, key management, Bluetooth, CAN, TIPC, RDS, XDP and every
    other family are refused, as are pairs of anything but Unix sockets."""
    code = """
import errno, socket
for family in list(range(46)):
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
        try:
            socket.socket(family, kind).close()
        except OSError as exc:
            if exc.errno != errno.EPERM and family not in (1, 2, 10):
                print("NOT-REFUSED-BY-FILTER", family, kind, exc.errno)
            continue
        print("OPENED", family, kind, flush=True)
for family in (socket.AF_INET, socket.AF_INET6, 40):
    try:
        socket.socketpair(family, socket.SOCK_STREAM)
        print("PAIR", family)
    except OSError as exc:
        print("no pair", family, exc.errno)
left, right = socket.socketpair()
print("unix pair ok")
"""
    result = py(backend, code)
    assert result.ok, result
    opened = {
        tuple(map(int, line.split()[1:]))
        for line in result.stdout.splitlines()
        if line.startswith("OPENED")
    }
    assert {family for family, _kind in opened} <= {1, 2, 10}, opened
    assert (1, 1) in opened  # AF_UNIX stream: what asyncio and multiprocessing use
    assert (2, 1) in opened  # and TCP on loopback
    assert "NOT-REFUSED-BY-FILTER" not in result.stdout
    assert "PAIR" not in result.stdout
    assert "unix pair ok" in result.stdout
