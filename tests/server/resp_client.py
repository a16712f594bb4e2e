# SPDX-License-Identifier: MIT
"""resp_client.py - the smallest RESP2/RESP3 client that the tests need."""

import socket


class RespError(Exception):
    pass


class Map(dict):
    """A RESP3 map, told apart from a RESP2 array of pairs."""


class Set(list):
    """A RESP3 set, told apart from an array."""


class Resp:
    def __init__(self, port, timeout=10):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""

    def close(self):
        self.sock.close()

    @classmethod
    def once(cls, port, *args, timeout=10):
        """One command on a connection of its own, closed after the reply."""
        with cls(port, timeout=timeout) as r:
            return r.call(*args)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def send(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(parts))

    def call(self, *args):
        self.send(*args)
        return self.read()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def read(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RespError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self._exact(n + 2)
            return data[:-2].decode()
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        # RESP3 (after HELLO 3)
        if kind == b"_":
            return None
        if kind == b"%":
            return Map((self.read(), self.read()) for _ in range(int(rest)))
        if kind == b"~":
            return Set(self.read() for _ in range(int(rest)))
        if kind == b"#":
            return rest == b"t"
        if kind == b",":
            return float(rest)
        if kind in (b"=", b"!"):
            data = self._exact(int(rest) + 2)[:-2].decode()
            return data[4:] if kind == b"=" else RespError(data)
        raise ValueError(f"bad reply line {line!r}")
