#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_deb.py - the Debian packages of `make deb`, as an operator meets them.

Run as root (make check-deb): it installs libmintid0.4, libmintid-dev, mintid,
mintidd, postgresql-15-mintid, libsqlite3-mod-mintid, python3-mintid and
mariadb-plugin-mintid from DEB_DIR on this machine, then

  - lintian: no error and no warning (overrides carry their reason);
  - the unit: `systemd-analyze verify` says nothing, `systemd-analyze
    security --offline=true` rates it 2.0 or lower;
  - the conffile /etc/mintid/mintidd.conf is what the packaged mintidd
    writes from its settings table;
  - the package makes what the server needs without systemd: mintidd does
    not depend on systemd; installing makes the system user mintid (no
    login shell) and /var/lib/mintid, owned by it, with the unit's
    StateDirectoryMode; and mintidd's postinst, run again in a mount
    namespace of its own (/etc and /var/lib overlays that are thrown
    away, no user mintid in them), makes the same user and directory with
    systemd-sysusers and, with systemd-sysusers hidden, with adduser;
  - `mintid gen uuidv7` prints a version 7 UUID;
  - mintidd runs with the unit's own ExecStart line, as the unit's user,
    in its StateDirectory, with its UMask and LimitNOFILE, on spare
    loopback ports (MINTID_HTTP, MINTID_RESP): the test plays systemd's
    part for Type=notify (READY=1), mints over HTTP (curl) and RESP
    (redis-cli), reloads with the unit's ExecReload line and stops it with
    SIGTERM, as systemctl would. (Where systemd runs as PID 1, the unit
    itself is started, with the ports in a runtime drop-in.)
  - without systemd, as /usr/share/doc/mintidd/README.Debian says: its
    command (the unit's ExecStart line after `runuser -u mintid --`, and
    the one docs/server.md gives) is run as written, from a root shell
    with nothing of systemd's: mintidd says it is ready, runs as mintid,
    mints over HTTP and RESP, keeps its state private in /var/lib/mintid,
    and Ctrl-C stops it cleanly;
  - the extension is created in a throwaway cluster (as postgres, spare
    port, stopped by its pid) from the packaged files;
  - as a plain user (nobody), from /, with nothing of the source tree in
    reach: the sqlite3 shell loads the SQLite extension by name (`.load
    mintid`) and mints, and so does Python's sqlite3 module
    (load_extension('mintid')); the system python3 imports mintid from
    the package and mints (`mintid.gen('uuidv7')`);
  - the MariaDB functions are created in a throwaway mariadbd (as mysql,
    spare port, a data directory of its own, stopped by its pid) that
    loads them from the packaged plugin directory, by the packaged
    install.sql, and mint;

and purges every package, then checks that nothing is left behind: no
package, no file the packages shipped, no new path under /etc, /usr, /lib,
/var/lib (the package manager's own records aside). What Debian keeps on
purge stays and is listed: the system user `mintid` (and the backups of
/etc/passwd and friends that adding it made), since files it owned may
remain elsewhere and its uid must not pass to another user.

An unpackaged copy of the extension in PostgreSQL's directories (`make pg`,
`make check-pg`) is moved aside while the packages are installed, so that
CREATE EXTENSION sees the packaged files only, and put back at the end.

Usage: test_deb.py DEB_DIR
"""

import glob
import gzip
import grp
import os
import pwd
import re
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

PACKAGES = ["libmintid0.4", "libmintid-dev", "mintid", "mintidd", "postgresql-15-mintid", "libsqlite3-mod-mintid",
            "python3-mintid", "mariadb-plugin-mintid"]
UNIT = "/lib/systemd/system/mintidd.service"
CONFFILE = "/etc/mintid/mintidd.conf"
README_DEBIAN = "/usr/share/doc/mintidd/README.Debian"
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A root shell's PATH, where runuser, adduser and systemd-sysusers are found.
ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PG_BIN = "/usr/lib/postgresql/15/bin"
# Where the packages put files, and where their maintainer scripts may
# (users, systemd's links, the state directory). The package manager's own
# records (/var/lib/dpkg, /var/lib/apt) and caches change by design.
WATCHED = ["/etc", "/usr", "/lib", "/var/lib", "/opt"]
IGNORED = ["/var/lib/dpkg", "/var/lib/apt", "/var/lib/ucf", "/var/lib/postgresql", "/etc/ld.so.cache"]
# What Debian keeps after a purge: the system user, and the backups of the
# account files that adding it left.
KEPT_ON_PURGE = {"/etc/passwd-", "/etc/group-", "/etc/shadow-", "/etc/gshadow-"}
UUIDV7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

failures = []


def log(msg):
    print(f"test_deb: {msg}", flush=True)


def check(cond, what):
    """A failed check is recorded and the test goes on, so that one run
    shows every problem; the exit status says whether there was any."""
    if cond:
        log(f"ok: {what}")
    else:
        log(f"FAIL: {what}")
        failures.append(what)
    return cond


def run(cmd, check_rc=True, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check_rc and p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit status {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def spare_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def installed(pkg):
    p = run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", pkg], check_rc=False)
    return p.returncode == 0 and p.stdout.strip() not in ("", "un")


def snapshot():
    paths = set()
    for root in WATCHED:
        if os.path.islink(root):  # /lib on a merged /usr: seen as /usr/lib
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in IGNORED]
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                if path not in IGNORED:
                    paths.add(path)
    return paths


def deb_paths(deb):
    """The paths a .deb ships, as the file system will show them (the
    package says /lib, /bin; on a merged /usr those are symlinks)."""
    listing = run(["dpkg-deb", "-c", deb]).stdout
    paths = []
    for line in listing.splitlines():
        name = line.split(None, 5)[5].split(" -> ")[0]
        path = os.path.normpath(name.lstrip("."))
        if path != "/":
            paths.append(path)
    return paths


def unit_settings(path):
    """The unit's [Service] settings, each name to its list of values."""
    settings = {}
    section = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                section = line
                continue
            if section == "[Service]":
                name, _, value = line.partition("=")
                settings.setdefault(name, []).append(value)
    return settings


class Notify:
    """systemd's end of Type=notify: a datagram socket the service user may
    write to, named by NOTIFY_SOCKET."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mintid-notify-")
        os.chmod(self.dir, 0o755)
        self.path = os.path.join(self.dir, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        os.chmod(self.path, 0o666)

    def expect(self, key, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(deadline - time.monotonic(), 0.01))
            try:
                data = self.sock.recv(4096).decode()
            except socket.timeout:
                break
            fields = dict(line.partition("=")[::2] for line in data.split("\n") if line)
            if fields.get(key) == "1":
                return True
        return False

    def close(self):
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def as_user(user, group, umask, nofile):
    """What systemd does for User=, Group=, UMask= and LimitNOFILE= before
    it runs an Exec line: the preexec_fn of a child."""
    pw = pwd.getpwnam(user)
    gid = grp.getgrnam(group).gr_gid

    def enter():
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        os.setgroups([])
        os.setgid(gid)
        os.setuid(pw.pw_uid)
        os.umask(umask)

    return enter


def http_get(port, path):
    return run(["curl", "-sS", "--fail", "--max-time", "10", f"http://127.0.0.1:{port}{path}"], check_rc=False)


def mint_over_both(http, resp):
    p = http_get(http, "/v1/uuidv7")
    check(p.returncode == 0 and UUIDV7.match(p.stdout.strip()) is not None,
          f"HTTP: GET /v1/uuidv7 gives a UUIDv7 ({p.stdout.strip()!r} {p.stderr.strip()})")
    p = run(["redis-cli", "-h", "127.0.0.1", "-p", str(resp), "MINT", "nanoflake", "3"], check_rc=False)
    ids = p.stdout.split()
    check(p.returncode == 0 and len(ids) == 3 and len(set(ids)) == 3,
          f"RESP: MINT nanoflake 3 gives three IDs ({ids} {p.stderr.strip()})")


def systemd_running():
    p = run(["systemctl", "is-system-running"], check_rc=False)
    state = p.stdout.strip()
    return state in ("running", "degraded", "starting"), state


def server_under_systemd(http, resp):
    """systemd is PID 1: the unit itself, its ports in a runtime drop-in."""
    dropin = "/run/systemd/system/mintidd.service.d"
    os.makedirs(dropin, exist_ok=True)
    with open(os.path.join(dropin, "test-ports.conf"), "w") as f:
        f.write(f"[Service]\nEnvironment=MINTID_HTTP=127.0.0.1:{http} MINTID_RESP=127.0.0.1:{resp} "
                f"MINTID_ID_SPACE=check-deb-{os.getpid()}\n")
    try:
        run(["systemctl", "daemon-reload"])
        p = run(["systemctl", "restart", "mintidd"], check_rc=False)
        check(p.returncode == 0, f"systemctl restart mintidd {p.stderr.strip()}")
        user = run(["systemctl", "show", "-P", "User", "mintidd"]).stdout.strip()
        check(user == "mintid", f"the service runs as mintid ({user})")
        mint_over_both(http, resp)
        p = run(["systemctl", "reload", "mintidd"], check_rc=False)
        check(p.returncode == 0, f"systemctl reload mintidd {p.stderr.strip()}")
        p = run(["systemctl", "stop", "mintidd"], check_rc=False)
        check(p.returncode == 0, f"systemctl stop mintidd {p.stderr.strip()}")
    finally:
        shutil.rmtree(dropin, ignore_errors=True)
        run(["systemctl", "daemon-reload"], check_rc=False)


def server_as_the_unit_would(unit, http, resp):
    """No systemd as PID 1: the unit's own ExecStart line, run as systemd
    would run it (user, group, umask, descriptor limit, state directory,
    NOTIFY_SOCKET), and its ExecReload line for the reload."""
    user, group = unit["User"][-1], unit["Group"][-1]
    umask = int(unit.get("UMask", ["0022"])[-1], 8)
    nofile = int(unit["LimitNOFILE"][-1])
    # The state directory is the one the package made (systemd would make
    # it too, but does not run here).
    state = os.path.join("/var/lib", unit["StateDirectory"][-1])
    pw = pwd.getpwnam(user)
    start = unit["ExecStart"][-1].split()
    notify = Notify()
    env = {"PATH": "/usr/bin:/bin", "NOTIFY_SOCKET": notify.path, "MINTID_HTTP": f"127.0.0.1:{http}",
           "MINTID_RESP": f"127.0.0.1:{resp}", "MINTID_ID_SPACE": f"check-deb-{os.getpid()}"}
    errlog = tempfile.TemporaryFile()
    proc = subprocess.Popen(start, env=env, cwd="/", stdout=subprocess.DEVNULL, stderr=errlog,
                            preexec_fn=as_user(user, group, umask, nofile))
    log(f"mintidd started as pid {proc.pid}: {' '.join(start)}")

    def server_log():
        errlog.seek(0)
        return errlog.read().decode(errors="replace")

    try:
        ready = notify.expect("READY")
        if not check(ready and proc.poll() is None, "mintidd says READY=1 (Type=notify)"):
            log("mintidd's log:\n" + server_log())
            return
        with open(f"/proc/{proc.pid}/status") as f:
            uid = next(line.split()[1] for line in f if line.startswith("Uid:"))
        check(int(uid) == pw.pw_uid, f"mintidd runs as {user}")
        mint_over_both(http, resp)
        files = os.listdir(state)
        modes = {name: os.stat(os.path.join(state, name)) for name in files}
        check(files and all(st.st_uid == pw.pw_uid for st in modes.values()),
              f"the state is in {state}, owned by {user} ({files})")
        check(all(st.st_mode & 0o077 == 0 for st in modes.values()), f"UMask: the state is private to {user}")
        reload = unit["ExecReload"][-1].replace("$MAINPID", str(proc.pid)).split()
        run(reload, preexec_fn=as_user(user, group, umask, nofile))
        check(notify.expect("RELOADING") and notify.expect("READY"), "ExecReload: RELOADING=1, then READY=1")
        proc.send_signal(signal.SIGTERM)
        check(notify.expect("STOPPING"), "SIGTERM: STOPPING=1")
        status = proc.wait(30)
        check(status == 0, f"mintidd stops cleanly on SIGTERM (exit status {status})")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        notify.close()
        errlog.close()


def no_systemd_dependency(deb):
    """Installing mintidd where systemd does not run pulls nothing of it in
    (libsystemd0, the library sd_notify is in, is not systemd)."""
    depends = run(["dpkg-deb", "-f", deb, "Pre-Depends", "Depends"]).stdout
    names = [re.split(r"[\s(:]", alt.strip())[0] for field in depends.splitlines()
             for group in field.partition(":")[2].split(",") for alt in group.split("|")]
    systemd = [name for name in names if name == "systemd" or name.startswith("systemd-")]
    check(names and not systemd, f"mintidd does not depend on systemd ({' '.join(depends.split())})")


def state_dir_made(unit):
    """Installing made the user and the unit's StateDirectory, owned by the
    user, with its StateDirectoryMode: systemd is not needed for either."""
    user = unit["User"][-1]
    try:
        pw = pwd.getpwnam(user)
    except KeyError:
        check(False, f"the system user {user} exists")
        return
    check(pw.pw_shell in ("/usr/sbin/nologin", "/sbin/nologin"), f"the system user {user} exists, without a login "
          f"shell ({pw.pw_shell})")
    state = os.path.join("/var/lib", unit["StateDirectory"][-1])
    mode = int(unit.get("StateDirectoryMode", ["0755"])[-1], 8)
    st = os.stat(state) if os.path.isdir(state) else None
    check(st is not None and (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (pw.pw_uid, pw.pw_gid, mode),
          f"installing made {state}, owned by {user}, mode {mode:04o} "
          f"({'missing' if st is None else f'{st.st_uid}:{st.st_gid} {st.st_mode & 0o7777:04o}'})")


# Run by unshare(1) in a mount namespace of its own: /etc and /var/lib are
# overlays on a tmpfs, so what the postinst writes there (the user, the
# directory, systemd's links) goes with the namespace. The user mintid and
# the state directory are taken out first, so that the postinst makes them;
# systemd-sysusers is hidden by a file that cannot be executed, bound over
# it, when its path is given.
POSTINST_IN_A_NAMESPACE = r"""
set -eu
postinst=$1 scratch=$2 hide=$3
mount -t tmpfs mintid-check-deb "$scratch"
for d in etc var/lib; do
    name=$(echo "$d" | tr / -)
    mkdir "$scratch/$name-upper" "$scratch/$name-work"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$scratch/$name-upper,workdir=$scratch/$name-work" "/$d"
done
for f in passwd group shadow gshadow; do
    sed -i '/^mintid:/d' "/etc/$f"
done
rm -rf /var/lib/mintid
if [ -n "$hide" ]; then
    : >"$scratch/absent"
    chmod 0644 "$scratch/absent"
    mount --bind "$scratch/absent" "$hide"
fi
status=0
sh "$postinst" configure >"$scratch/log" 2>&1 || status=$?
echo "status $status"
echo "passwd $(getent passwd mintid || true)"
echo "group $(getent group mintid || true)"
echo "dir $(stat -c '%U %G %a' /var/lib/mintid 2>/dev/null || true)"
echo "log"
cat "$scratch/log"
"""


def postinst_in_a_namespace(postinst, hide):
    """mintidd's postinst configure, in a throwaway namespace, with the
    program HIDE (a path, or "") hidden: its exit status, the user's passwd
    line, its group's line, the state directory's owner, group and mode,
    and what the postinst wrote."""
    scratch = tempfile.mkdtemp(prefix="mintid-postinst-")
    try:
        p = run(["unshare", "--mount", "--propagation", "private", "sh", "-c", POSTINST_IN_A_NAMESPACE, "sh",
                 postinst, scratch, hide], check_rc=False, env={"PATH": ROOT_PATH, "LANG": "C.UTF-8"}, cwd="/")
    finally:
        os.rmdir(scratch)
    out, _, log_text = p.stdout.partition("\nlog\n")
    fields = dict(line.partition(" ")[::2] for line in out.splitlines())
    if p.returncode != 0 or "status" not in fields:
        raise RuntimeError(f"postinst in a namespace: exit status {p.returncode}\n{p.stdout}{p.stderr}")
    return int(fields["status"]), fields["passwd"], fields["group"], fields["dir"], log_text.strip()


def user_without_sysusers(deb):
    """The user and the state directory the postinst makes with
    systemd-sysusers, and the same with adduser where systemd-sysusers is
    not installed."""
    def as_they_are():
        users = {p.pw_name: p for p in pwd.getpwall()}
        return os.path.isdir("/var/lib/mintid"), users.get("mintid")

    sysusers = shutil.which("systemd-sysusers", path=ROOT_PATH)
    if not check(sysusers, "systemd-sysusers is installed here, to be hidden (make deps installs systemd)"):
        return
    real = as_they_are()
    control = tempfile.mkdtemp(prefix="mintid-control-")
    try:
        run(["dpkg-deb", "-e", deb, control])
        made = {}
        for how, hide in (("systemd-sysusers", ""), ("adduser", os.path.realpath(sysusers))):
            status, passwd, group, state, out = postinst_in_a_namespace(os.path.join(control, "postinst"), hide)
            entry = passwd.split(":")
            gid = group.split(":")[2] if group.count(":") == 3 else None
            if len(entry) == 7:
                entry[4] = entry[4].split(",")[0]  # the name of the GECOS field (adduser's has empty others)
            ok = (status == 0 and len(entry) == 7 and entry[0] == "mintid" and int(entry[2]) < 1000
                  and entry[3] == gid and entry[4:] == ["mintid ID server", "/var/lib/mintid", "/usr/sbin/nologin"]
                  and state == "mintid mintid 750")
            check(ok, f"postinst{' without systemd-sysusers' if hide else ''} makes the system user mintid with "
                  f"{how} and /var/lib/mintid (status {status}, {passwd!r}, {group!r}, {state!r}"
                  f"{'' if ok else ', ' + repr(out)})")
            made[how] = entry[4:]
        check(made["systemd-sysusers"] == made["adduser"], f"adduser gives the user what sysusers.d does ({made})")
        check(as_they_are() == real, "the namespaces left the real user and state directory as they were")
    finally:
        shutil.rmtree(control, ignore_errors=True)


def foreground_command(unit):
    """The one command README.Debian gives for running without systemd (its
    indented line that starts with runuser), split as sh would."""
    found = [path for path in (README_DEBIAN, README_DEBIAN + ".gz") if os.path.isfile(path)]
    if not check(found, f"{README_DEBIAN} is there"):
        return None
    with (gzip.open if found[0].endswith(".gz") else open)(found[0], "rt") as f:
        lines = [line.strip() for line in f if line.startswith("    runuser ")]
    if not check(len(lines) == 1, f"{README_DEBIAN} gives one command without systemd ({lines})"):
        return None
    line = lines[0]
    argv = shlex.split(line)
    check(argv[:4] == ["runuser", "-u", unit["User"][-1], "--"] and argv[4:] == unit["ExecStart"][-1].split(),
          f"it is the unit's ExecStart line as its User ({line})")
    with open(os.path.join(SOURCE_DIR, "docs", "server.md")) as f:
        check(line in f.read(), "docs/server.md gives the same command")
    return line


def server_in_the_foreground(unit, http, resp):
    """README.Debian's command, run as a root shell runs it (split into
    words: it has no other syntax): no NOTIFY_SOCKET, no descriptor limit
    or umask set for it, nothing of systemd's. Stopped as Ctrl-C stops it,
    SIGINT to its process group."""
    line = foreground_command(unit)
    if line is None:
        return
    user = unit["User"][-1]
    pw = pwd.getpwnam(user)
    state = os.path.join("/var/lib", unit["StateDirectory"][-1])
    env = {"PATH": ROOT_PATH, "HOME": "/root", "LANG": "C.UTF-8", "MINTID_HTTP": f"127.0.0.1:{http}",
           "MINTID_RESP": f"127.0.0.1:{resp}", "MINTID_ID_SPACE": f"check-deb-{os.getpid()}"}
    proc = subprocess.Popen(shlex.split(line), env=env, cwd="/", stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    log(f"started as pid {proc.pid}: {line}")
    lines, ready, failed_before = [], threading.Event(), len(failures)

    def read_log():
        for text in proc.stderr:
            lines.append(text)
            if " ready: " in text:
                ready.set()

    reader = threading.Thread(target=read_log)
    reader.start()
    try:
        if not check(ready.wait(60) and proc.poll() is None, "mintidd says it is ready"):
            return
        with open(os.path.join(state, "pid")) as f:
            pid = int(f.read())
        with open(f"/proc/{pid}/status") as f:
            uid = next(line.split()[1] for line in f if line.startswith("Uid:"))
        check(int(uid) == pw.pw_uid, f"mintidd runs as {user}")
        mint_over_both(http, resp)
        files = {name: os.stat(os.path.join(state, name)) for name in os.listdir(state)}
        check(files and all(st.st_uid == pw.pw_uid and st.st_mode & 0o077 == 0 for st in files.values()),
              f"the state is in {state}, owned by {user} and private to it ({sorted(files)})")
        os.killpg(proc.pid, signal.SIGINT)
        status = proc.wait(30)
        reader.join()
        check(status == 0 and any(text.rstrip().endswith(" stopped") for text in lines),
              f"Ctrl-C stops it cleanly (exit status {status})")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        reader.join()
        proc.stderr.close()
        if len(failures) > failed_before:
            log("its log:\n" + "".join(lines))


def extension_in_a_throwaway_cluster():
    so = "/usr/lib/postgresql/15/lib/mintid.so"
    owner = owner_of(so)
    check(owner == "postgresql-15-mintid", f"{so} is the package's ({owner})")
    root = tempfile.mkdtemp(prefix="mintid-pg-")
    pw = pwd.getpwnam("postgres")
    os.chown(root, pw.pw_uid, pw.pw_gid)
    data = os.path.join(root, "data")
    port = spare_port()

    def as_postgres():
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)

    postmaster = None
    try:
        run([os.path.join(PG_BIN, "initdb"), "-D", data, "--auth=trust", "-U", "postgres", "--no-sync"],
            preexec_fn=as_postgres, cwd=root)
        with open(os.path.join(data, "postgresql.conf"), "a") as f:
            f.write(f"port = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{root}'\n"
                    "shared_preload_libraries = 'mintid'\n")
        postmaster = subprocess.Popen([os.path.join(PG_BIN, "postgres"), "-D", data], preexec_fn=as_postgres,
                                      cwd=root, stdout=subprocess.DEVNULL, stderr=open(os.path.join(root, "log"), "w"))
        log(f"postgres started as pid {postmaster.pid} on port {port}")
        env = dict(os.environ, PGHOST=root, PGPORT=str(port), PGUSER="postgres")
        deadline = time.monotonic() + 60
        while run(["pg_isready", "-q"], check_rc=False, env=env).returncode != 0:
            if postmaster.poll() is not None or time.monotonic() > deadline:
                with open(os.path.join(root, "log")) as f:
                    raise RuntimeError("postgres did not start:\n" + f.read())
            time.sleep(0.1)
        sql = ("CREATE EXTENSION mintid; "
               "SELECT extversion FROM pg_extension WHERE extname = 'mintid'; "
               "SELECT gen_uuidv7()::text; SELECT gen_nanoflake()::text;")
        p = run(["psql", "-X", "-Atq", "-v", "ON_ERROR_STOP=1", "-d", "postgres", "-c", sql], check_rc=False, env=env)
        out = p.stdout.split()
        check(p.returncode == 0 and len(out) == 3 and UUIDV7.match(out[1]) is not None,
              f"CREATE EXTENSION mintid from the package, then gen_uuidv7() and gen_nanoflake() ({out} "
              f"{p.stderr.strip()})")
    finally:
        if postmaster is not None and postmaster.poll() is None:
            postmaster.send_signal(signal.SIGINT)  # fast shutdown, by its pid
            try:
                postmaster.wait(60)
            except subprocess.TimeoutExpired:
                postmaster.kill()
                postmaster.wait()
        shutil.rmtree(root, ignore_errors=True)


def as_nobody():
    """A plain user's process: the preexec_fn of a child."""
    pw = pwd.getpwnam("nobody")

    def enter():
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)

    return enter


# A plain user's environment: no PYTHONPATH, no ~/.sqliterc, nothing of the
# source tree (the working directory is /).
USER_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"}


def owner_of(path):
    return run(["dpkg", "-S", path], check_rc=False).stdout.split(":")[0]


def sqlite_extension():
    """The SQLite extension where the dynamic loader finds it by name."""
    multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip()
    so = f"/usr/lib/{multiarch}/mintid.so"
    owner = owner_of(so)
    check(owner == "libsqlite3-mod-mintid", f"{so} is libsqlite3-mod-mintid's ({owner})")
    p = run(["sqlite3", "-init", "/dev/null", "-bail", ":memory:", ".load mintid",
             "SELECT gen_uuidv7();", "SELECT typeof(gen_nanoflake_int());"],
            check_rc=False, cwd="/", env=USER_ENV, preexec_fn=as_nobody())
    out = p.stdout.split()
    check(p.returncode == 0 and len(out) == 2 and UUIDV7.match(out[0]) is not None and out[1] == "integer",
          f"sqlite3 shell: .load mintid, SELECT gen_uuidv7() and gen_nanoflake_int() ({out} {p.stderr.strip()})")
    script = ("import sqlite3\n"
              "db = sqlite3.connect(':memory:')\n"
              "db.enable_load_extension(True)\n"
              "db.load_extension('mintid')\n"
              "db.enable_load_extension(False)\n"
              "print(db.execute('SELECT gen_uuidv7()').fetchone()[0])\n")
    p = run(["python3", "-c", script], check_rc=False, cwd="/", env=USER_ENV, preexec_fn=as_nobody())
    check(p.returncode == 0 and UUIDV7.match(p.stdout.strip()) is not None,
          f"Python's sqlite3: load_extension('mintid'), SELECT gen_uuidv7() ({p.stdout.strip()!r} "
          f"{p.stderr.strip()})")


def mariadb_functions():
    """The packaged mintid.so in the plugin directory of Debian's MariaDB, created by the packaged install.sql in a
    throwaway server (tests/mariadb/mariadb_server.py), never the system's service."""
    so = "/usr/lib/mysql/plugin/mintid.so"
    owner = owner_of(so)
    check(owner == "mariadb-plugin-mintid", f"{so} is mariadb-plugin-mintid's ({owner})")
    sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "mariadb"))
    import mariadb_server

    root = tempfile.mkdtemp(prefix="mintid-mariadb-")
    server = mariadb_server.Server(root, so, plugin_dir=os.path.dirname(so))
    try:
        server.install()
        server.start()
        log(f"mariadbd started as pid {server.pid} on port {server.port}")
        server.install_functions("/usr/share/mintid/mariadb/install.sql")
        out = server.sql("SELECT mintid('uuidv7'), mintid_int('nanoflake'), "
                         "JSON_VALUE(mintid_inspect(mintid_bin('ulid'), 'ulid'), '$.format')").split()
        check(len(out) == 3 and UUIDV7.match(out[0]) is not None and out[1].isdigit() and out[2] == "ulid",
              f"MariaDB: install.sql from the package, then mintid('uuidv7'), mintid_int('nanoflake'), "
              f"mintid_inspect(mintid_bin('ulid'), 'ulid') ({out})")
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def python_module():
    """import mintid with the system python3, from the package."""
    script = "import mintid; print(mintid.__file__); print(mintid.gen('uuidv7'))"
    p = run(["python3", "-c", script], check_rc=False, cwd="/", env=USER_ENV, preexec_fn=as_nobody())
    out = p.stdout.split()
    where = out[0] if out else ""
    owner = owner_of(where) if where else ""
    check(p.returncode == 0 and owner == "python3-mintid",
          f"python3: import mintid finds python3-mintid's module ({where} {owner} {p.stderr.strip()})")
    check(len(out) == 2 and UUIDV7.match(out[1]) is not None,
          f"python3: mintid.gen('uuidv7') gives a UUIDv7 ({out[1:]})")


def restore(backup, paths):
    """Puts back what was moved aside, unless a package owns the path now."""
    for name in os.listdir(backup):
        path = name.replace("%", "/")
        if os.path.lexists(path):
            log(f"not put back, {path} is there again")
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        shutil.move(os.path.join(backup, name), path)
    shutil.rmtree(backup, ignore_errors=True)
    if paths:
        log(f"put back: {paths}")


def purge():
    present = [p for p in PACKAGES if installed(p)]
    if present:
        run(["apt-get", "purge", "-y", "-q"] + present, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    return present


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    debdir = os.path.abspath(sys.argv[1])
    if os.getuid() != 0:
        sys.exit("test_deb: run as root: it installs and purges packages (make check-deb)")
    debs = {}
    for pkg in PACKAGES:
        found = [f for f in os.listdir(debdir) if f.startswith(pkg + "_") and f.endswith(".deb")]
        if len(found) != 1:
            sys.exit(f"test_deb: no single {pkg}_*.deb in {debdir}: run make deb first")
        debs[pkg] = os.path.join(debdir, found[0])
    already = [p for p in PACKAGES if installed(p)]
    if already:
        sys.exit(f"test_deb: {' '.join(already)} already installed; this test purges what it installs, so it "
                 f"does not run over an installation of yours (apt-get purge {' '.join(already)} first)")

    no_systemd_dependency(debs["mintidd"])
    changes = [os.path.join(debdir, f) for f in os.listdir(debdir) if f.endswith(".changes")]
    p = run(["lintian", "--fail-on", "error,warning"] + changes, check_rc=False)
    print(p.stdout + p.stderr, end="")
    check(p.returncode == 0, "lintian: no error and no warning")

    # An unpackaged copy of the extension (make pg, make check-pg) would be
    # overwritten by the package, removed by the purge, and its other
    # versions' scripts used by CREATE EXTENSION: it is moved aside while
    # the packages are installed and put back at the end.
    unpackaged = sorted(glob.glob("/usr/lib/postgresql/*/lib/mintid.so") +
                        glob.glob("/usr/lib/postgresql/*/lib/bitcode/mintid*") +
                        glob.glob("/usr/share/postgresql/*/extension/mintid[-.]*"))
    backup = tempfile.mkdtemp(prefix="mintid-unpackaged-")
    for path in unpackaged:
        shutil.move(path, os.path.join(backup, path.replace("/", "%")))
    if unpackaged:
        log(f"moved aside until the end, an unpackaged copy of the extension (make pg): {unpackaged}")
    try:
        before = snapshot()
        shipped = {path for deb in debs.values() for path in deb_paths(deb)}
        new_shipped = {path for path in shipped if not os.path.lexists(path)}
        try:
            run(["apt-get", "install", "-y", "-q", "--no-install-recommends"] + list(debs.values()),
                env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
            log("installed " + " ".join(PACKAGES))

            unit = unit_settings(UNIT)
            state_dir_made(unit)
            user_without_sysusers(debs["mintidd"])
            conffiles = run(["dpkg-query", "-W", "-f=${Conffiles}", "mintidd"]).stdout
            check(CONFFILE in conffiles, f"{CONFFILE} is a conffile")
            reference = run(["/usr/bin/mintidd", "--settings-reference", "conf"]).stdout
            with open(CONFFILE) as f:
                check(f.read() == reference, f"{CONFFILE} is mintidd --settings-reference conf, unchanged")

            man = os.path.exists("/usr/share/man/man8/mintidd.8.gz")
            p = run(["systemd-analyze", "verify", f"--man={'yes' if man else 'no'}", UNIT], check_rc=False)
            if not man:
                log("mintidd.8 is not packaged yet: verify does not look for the unit's Documentation= pages")
            check(p.returncode == 0 and p.stdout + p.stderr == "",
                  f"systemd-analyze verify is silent {(p.stdout + p.stderr).strip()}")
            p = run(["systemd-analyze", "security", "--offline=true", "--threshold=20", UNIT], check_rc=False)
            score = re.search(r"Overall exposure level for \S+: ([0-9.]+) (\S+)", p.stdout)
            check(p.returncode == 0 and score is not None and float(score.group(1)) <= 2.0,
                  f"systemd-analyze security --offline=true: {score.group(1) + ' ' + score.group(2) if score else p.stdout}"
                  " (2.0 or lower)")

            p = run(["/usr/bin/mintid", "gen", "uuidv7"], check_rc=False)
            check(p.returncode == 0 and UUIDV7.match(p.stdout.strip()) is not None,
                  f"mintid gen uuidv7 prints a UUIDv7 ({p.stdout.strip()!r})")

            http, resp = spare_port(), spare_port()
            under_systemd, state = systemd_running()
            if under_systemd:
                server_under_systemd(http, resp)
            else:
                log(f"systemd is not running as PID 1 (systemctl is-system-running: {state}): "
                    "running the unit's command lines as systemd would")
                server_as_the_unit_would(unit, http, resp)
            server_in_the_foreground(unit, spare_port(), spare_port())

            extension_in_a_throwaway_cluster()
            sqlite_extension()
            python_module()
            mariadb_functions()
        finally:
            purged = purge()
            log("purged " + " ".join(purged))

        left = [p for p in PACKAGES if run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", p], check_rc=False)
                .stdout.strip() not in ("", "un")]
        check(not left, f"no package left, not even its configuration ({' '.join(left)})")
        remaining = sorted(path for path in new_shipped if os.path.lexists(path))
        check(not remaining, f"every path the packages brought is gone ({remaining})")
        after = snapshot()
        new = sorted(after - before)
        kept = [path for path in new if path in KEPT_ON_PURGE]
        stray = [path for path in new if path not in KEPT_ON_PURGE]
        check(not stray, f"nothing new under {' '.join(WATCHED)} after the purge ({stray})")
        check(not os.path.exists("/var/lib/mintid"), "the state directory /var/lib/mintid is gone")
        try:
            pwd.getpwnam("mintid")
            log("kept, as Debian keeps system users: the user mintid" + (f", and {' '.join(kept)}" if kept else ""))
        except KeyError:
            pass
        gone = sorted(before - after)
        check(not gone, f"nothing that was there before is gone ({gone})")
    finally:
        restore(backup, unpackaged)
    if failures:
        log(f"{len(failures)} check(s) failed:")
        for f in failures:
            log(f"  {f}")
        sys.exit(1)
    log("all checks passed")


if __name__ == "__main__":
    main()
