# SPDX-License-Identifier: MIT
"""A throwaway MariaDB server of a test's own, with mintid's functions.

Server(root, module) makes a data directory in root (mariadb-install-db),
and start() runs Debian's mariadbd on it: on a spare loopback port and a
socket in root, reading no option file, with a plugin directory of its own
that holds a copy of the module (mintid.so; or a package's plugin
directory as it is), as the mysql user when the test runs as root. The host-wide state is root/host (mode 1777, as
/var/tmp), the MINTID_HOST_DIR of the server and of every command the test
runs beside it. stop() ends the server by the pid it wrote, never by name.

The server's environment is the test's settings (MINTID_NODE,
MINTID_<FORMAT>_EPOCH, ...): the module reads it once, so a test that
changes one restarts the server.
"""
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time

MARIADBD = "/usr/sbin/mariadbd"
INSTALL_DB = "/usr/bin/mariadb-install-db"
CLIENT = "/usr/bin/mariadb"
INSTALL_SQL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "mariadb", "install.sql")


class Failure(Exception):
    pass


def spare_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def alive(pid):
    """Whether pid runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


class Server:
    def __init__(self, root, module, log_bin=False, plugin_dir=None):
        """module: the mintid.so to copy into a plugin directory of the server's own; or, with plugin_dir, the
        directory the server is to load it from as it is (an installed package's)."""
        for tool in (MARIADBD, INSTALL_DB, CLIENT):
            if not os.path.exists(tool):
                raise Failure(f"{tool} not found: the tests need Debian's mariadb-server (make deps installs it)")
        self.root = os.path.abspath(root)
        self.module = os.path.abspath(module)
        self.data = os.path.join(self.root, "data")
        self.plugins = plugin_dir or os.path.join(self.root, "plugin")
        self.socket = os.path.join(self.root, "sock")
        self.pidfile = os.path.join(self.root, "mariadbd.pid")
        self.log = os.path.join(self.root, "mariadbd.log")
        self.host_dir = os.path.join(self.root, "host")
        self.log_bin = log_bin
        self.port = spare_port()
        self.pid = None
        self.proc = None
        self.env = {}
        self.as_mysql = []
        if os.getuid() == 0:
            pw = pwd.getpwnam("mysql")
            self.as_mysql = ["runuser", "-u", "mysql", "--"]
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        os.chmod(self.root, 0o755)
        os.makedirs(self.host_dir)
        os.chmod(self.host_dir, 0o1777)
        if plugin_dir is None:
            os.makedirs(self.plugins)
            shutil.copy(self.module, os.path.join(self.plugins, "mintid.so"))
            if self.as_mysql:
                os.chown(self.plugins, pw.pw_uid, pw.pw_gid)

    def install(self):
        """The data directory, with a root user without a password (over the socket only: no network)."""
        r = subprocess.run(self.as_mysql + [INSTALL_DB, "--no-defaults", f"--datadir={self.data}",
                                            "--auth-root-authentication-method=normal", "--skip-test-db",
                                            "--innodb-log-file-size=8M"],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise Failure(f"mariadb-install-db: {r.stdout}{r.stderr}")

    def mintid_env(self):
        """The environment of the server and of a command beside it: the test's host-wide state, its settings."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("MINTID_")}
        env["MINTID_HOST_DIR"] = self.host_dir
        env.update(self.env)
        return env

    def start(self, **settings):
        """Starts the server with these MINTID_* settings in its environment (replacing the last start's)."""
        self.env = {k: str(v) for k, v in settings.items()}
        env = ["env"] + [f"{k}={v}" for k, v in self.mintid_env().items() if k.startswith("MINTID_")]
        args = [MARIADBD, "--no-defaults", f"--datadir={self.data}", f"--socket={self.socket}", f"--port={self.port}",
                "--bind-address=127.0.0.1", f"--plugin-dir={self.plugins}", f"--pid-file={self.pidfile}",
                f"--log-error={self.log}", "--innodb-log-file-size=8M", "--innodb-buffer-pool-size=64M",
                "--innodb-flush-log-at-trx-commit=2", "--max-connections=40", "--skip-name-resolve"]
        if self.log_bin:
            args += [f"--log-bin={os.path.join(self.root, 'binlog')}", "--server-id=1"]
        if os.path.exists(self.pidfile):
            os.unlink(self.pidfile)
        # The environment is set by env(1) after runuser, which would reset some of it.
        self.proc = subprocess.Popen(self.as_mysql + env + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise Failure(f"mariadbd exited with {self.proc.returncode}:\n{self.log_tail()}")
            if os.path.exists(self.pidfile):
                r = subprocess.run([CLIENT, "--no-defaults", "-S", self.socket, "-uroot", "-e", "SELECT 1"],
                                   capture_output=True, text=True)
                if r.returncode == 0:
                    break
            if time.monotonic() > deadline:
                raise Failure(f"mariadbd did not answer within 60 s:\n{self.log_tail()}")
            time.sleep(0.05)
        with open(self.pidfile) as f:
            self.pid = int(f.read().strip())

    def stop(self):
        """SIGTERM to the server, by its pid: a clean shutdown, waited for (60 s at most)."""
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + 60
            while alive(self.pid):
                if time.monotonic() > deadline:
                    raise Failure(f"mariadbd {self.pid} did not stop within 60 s")
                time.sleep(0.05)
            self.pid = None
        if self.proc is not None:
            self.proc.wait(timeout=60)
            self.proc = None

    def restart(self, **settings):
        self.stop()
        self.start(**settings)

    def log_tail(self, n=20):
        try:
            with open(self.log) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return "(no log)"

    def client(self, *extra, database=None):
        """The mariadb client's command line for this server, as root over the socket."""
        cmd = [CLIENT, "--no-defaults", "-S", self.socket, "-uroot", "--batch", "--skip-column-names"] + list(extra)
        return cmd + ([database] if database else [])

    def sql(self, sql, database=None, check=True, extra=()):
        """Runs SQL; returns stdout (raises on an error unless check is False, then returns the CompletedProcess)."""
        r = subprocess.run(self.client(*extra, database=database), input=sql, capture_output=True, text=True,
                           timeout=300)
        if not check:
            return r
        if r.returncode != 0:
            raise Failure(f"{sql.strip()[:200]!r}: {r.stderr.strip()}")
        return r.stdout

    def refused(self, sql, database=None):
        """The error of a statement that must fail: (error number, message)."""
        r = self.sql(sql, database=database, check=False)
        m = re.search(r"^ERROR (\d+) \((\w+)\)(?: at line \d+)?: (.*)$", r.stderr, re.M)
        if r.returncode == 0 or m is None:
            return None, f"accepted: {r.stdout.strip()!r} {r.stderr.strip()!r}"
        return int(m.group(1)), m.group(3)

    def install_functions(self, path=INSTALL_SQL):
        with open(path) as f:
            self.sql(f.read())
