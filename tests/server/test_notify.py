# SPDX-License-Identifier: MIT
"""test_notify.py - mintidd tells systemd (Type=notify) where it stands.

The test plays systemd's part: it binds the datagram socket named by
NOTIFY_SOCKET and reads what mintidd sends. READY=1 must come only once
both listeners accept and the state file is written; SIGHUP is bracketed
by RELOADING=1 and READY=1; SIGTERM brings STOPPING=1 before the exit.
"""

import argparse
import os
import signal
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def fields(datagram):
    """A notification as a dict of its KEY=VALUE lines."""
    out = {}
    for line in datagram.decode().split("\n"):
        if line:
            key, _, value = line.partition("=")
            out[key] = value
    return out


def receive(sock, server, what, timeout=20):
    """The next notification; a server that exits first, or none within
    `timeout`, fails the test with the server's log."""
    sock.settimeout(timeout)
    try:
        return fields(sock.recv(4096))
    except socket.timeout:
        server.proc.kill()
        _, log = server.wait()
        raise AssertionError(f"no notification ({what}) within {timeout} s; mintidd's log:\n{log}") from None


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--no-faketime", action="store_true")  # accepted like the other server tests
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="mintidd-notify-") as tmp:
        path = os.path.join(tmp, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        server = harness.Server(args.mintidd, env={"NOTIFY_SOCKET": path})
        try:
            server.start(expect_ready=False)
            msg = receive(sock, server, "READY=1 at start")
            assert msg.get("READY") == "1", f"the first notification is not READY=1: {msg}"
            # Ready means ready: the listeners accept and the state is on disk.
            assert accepts(server.http_port), "READY=1 came before the HTTP listener accepted"
            assert accepts(server.resp_port), "READY=1 came before the RESP listener accepted"
            state_files = os.listdir(server.state_dir)
            assert state_files, "READY=1 came before the state directory held anything"

            server.proc.send_signal(signal.SIGHUP)
            msg = receive(sock, server, "RELOADING=1 on SIGHUP")
            assert msg.get("RELOADING") == "1", f"SIGHUP: expected RELOADING=1, got {msg}"
            assert "MONOTONIC_USEC" in msg, f"RELOADING=1 without MONOTONIC_USEC: {msg}"
            msg = receive(sock, server, "READY=1 after the reload")
            assert msg.get("READY") == "1", f"after the reload: expected READY=1, got {msg}"

            server.proc.send_signal(signal.SIGTERM)
            msg = receive(sock, server, "STOPPING=1 on SIGTERM")
            assert msg.get("STOPPING") == "1", f"SIGTERM: expected STOPPING=1, got {msg}"
            status, log = server.wait()
            assert status == 0, f"mintidd exited with {status} after SIGTERM:\n{log}"
        finally:
            server.stop()
            sock.close()
            if server._tmp is not None:
                server._tmp.cleanup()
    print("test_notify: READY=1, RELOADING=1/READY=1 and STOPPING=1 as systemd expects")


if __name__ == "__main__":
    main()
