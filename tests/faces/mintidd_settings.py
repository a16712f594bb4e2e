# SPDX-License-Identifier: MIT
"""What mintidd's faces (HTTP, RESP) share in the one-table test: the node
id and the epochs are the server's settings, not a request's words.

- A node id is the server's (--node), and a format whose node field it
  does not fit is not served: each request for that format is refused with
  the library's sentence, so the case is asked of a server started with it.
- An epoch (--<format>-epoch) that is no epoch stops the start with the
  library's sentence and exit status 2 (EXIT_STATUS below): the
  column's code for that case.
"""
import subprocess
import sys

EXIT_STATUS = 2  # mintidd's exit status for a setting it refuses


def server(ctx, state, args=()):
    """A mintidd (tests/server/harness.py) in ctx's directory, not yet
    started, with ctx's environment: the harness starts from this process's,
    so what ctx.env left out stays out."""
    sys.path.insert(0, str(ctx.src / "tests" / "server"))
    from harness import Server

    srv = Server(str(ctx.build / "mintidd"), state_dir=str(ctx.tmp / state), args=list(args), env=dict(ctx.env))
    if "MINTID_NODE" not in ctx.env:
        srv.env.pop("MINTID_NODE", None)
    return srv


def stop(srv):
    """Stops a server of server() that was started, and cleans up after it; it must exit 0."""
    status, log = srv.stop()
    srv.__exit__(None, None, None)
    assert status == 0, f"mintidd exited with status {status}:\n{log}"


def node_refusal(ctx, case, ask):
    """Starts a mintidd with --node case["node"] and returns ask(server, format)."""
    with server(ctx, "mintidd-node-state", ["--node", str(case["node"])]) as srv:
        return ask(srv, case["format"])


def epoch_refusal(ctx, case):
    """Runs mintidd with --<format>-epoch case["epoch"]: (its message, its exit status)."""
    p = subprocess.run([str(ctx.build / "mintidd"), f"--{case['format']}-epoch", case["epoch"], "--state-dir",
                        str(ctx.tmp / "mintidd-epoch-state")], capture_output=True, text=True, env=ctx.env,
                       timeout=30)
    return p.stderr.strip(), p.returncode
