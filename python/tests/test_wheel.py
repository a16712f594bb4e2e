# SPDX-License-Identifier: MIT
"""The wheel of `make wheel` as its users meet it: a file whose name and tag
say honestly which CPython it is for, whose module needs nothing of
libmintid, installed with `pip install --no-index FILE.whl` (offline) into
a fresh virtual environment of every interpreter given that is of its
version, then imported from outside the source tree and used.

    test_wheel.py --wheel-dir build/wheel --python /usr/bin/python3 [--python python3 ...]

(ctest -R test_python_wheel runs it with Debian's interpreter, which builds
the wheel, and the one the build found.)
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

# Run by each virtual environment's interpreter, in a directory of its own.
USE = r"""
import json, os, sys, uuid
import mintid

here = os.path.dirname(mintid.__file__)
assert here.startswith(sys.prefix + os.sep), (here, sys.prefix)
one = mintid.gen('uuidv7')
u = mintid.gen('uuidv7', form='uuid')
g = mintid.Generator('nanoflake', node=3, form='int')
ids = g.next_many(100)
assert isinstance(u, uuid.UUID) and u.version == 7, u
assert ids == sorted(set(ids)) and mintid.inspect(ids[0], 'nanoflake')['generator'] == 3
assert mintid.inspect(one)['format'] == 'uuidv7'
print(json.dumps({'file': mintid.__file__, 'version': mintid.__version__, 'prefix': sys.prefix,
                  'typed': sorted(n for n in os.listdir(here) if n in ('py.typed', '__init__.pyi')),
                  'minted': [one, str(u), ids[0]]}))
"""


def fail(message):
    sys.exit("test_wheel: " + message)


def clean_env(**extra):
    """The environment without what would point pip or Python elsewhere
    (an index, find-links, a config, another tree's modules)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PIP_") and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        fail("%s exited with %d:\n%s%s" % (" ".join(cmd), done.returncode, done.stdout, done.stderr))
    return done.stdout


def the_wheel(wheel_dir):
    found = glob.glob(os.path.join(wheel_dir, "mintid-*.whl"))
    if len(found) != 1:
        fail("expected one mintid-*.whl in %s (make wheel builds it), found %s" % (wheel_dir, found or "none"))
    return found[0]


def check_wheel(path, work):
    """The name's tag, the WHEEL file's and the module's suffix agree; the
    module needs nothing of libmintid. Returns the CPython tag (cp311)."""
    m = re.fullmatch(r"mintid-(\d+\.\d+\.\d+)-(cp\d+)-(cp\d+)-(linux_x86_64)\.whl", os.path.basename(path))
    if not m:
        fail("%s: not named mintid-VERSION-cpXY-cpXY-linux_x86_64.whl" % os.path.basename(path))
    version, python_tag, abi_tag, platform = m.groups()
    if python_tag != abi_tag:
        fail("%s: the Python tag %s and the ABI tag %s differ" % (path, python_tag, abi_tag))
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        info = z.read("mintid-%s.dist-info/WHEEL" % version).decode()
        z.extractall(work)
    tags = re.findall(r"^Tag: (.*)$", info, re.M)
    if tags != ["%s-%s-%s" % (python_tag, abi_tag, platform)] or "Root-Is-Purelib: false" not in info:
        fail("%s: its WHEEL file says %r" % (path, info))
    digits = python_tag[2:]
    module = "mintid/_mintid.cpython-%s-x86_64-linux-gnu.so" % digits
    for want in ("mintid/__init__.py", "mintid/__init__.pyi", "mintid/py.typed", module):
        if want not in names:
            fail("%s: no %s in %s" % (path, want, names))
    # The library is compiled in: the module loads no libmintid, and finds every library it needs.
    needs = run(["ldd", os.path.join(work, module)])
    if "libmintid" in needs or "not found" in needs or "libpython" in needs:
        fail("%s links what a wheel cannot count on:\n%s" % (module, needs))
    print("%s: %s, tag %s-%s-%s; its module needs:\n%s" % (os.path.basename(path), version, python_tag, abi_tag,
                                                            platform, needs.rstrip()))
    return python_tag, version


def interpreter(python):
    out = run([python, "-c", "import json, os, sys; print(json.dumps([sys.implementation.name, "
                             "'cp%d%d' % sys.version_info[:2], os.path.realpath(sys.executable)]))"],
              env=clean_env())
    return json.loads(out)


def install_and_use(python, wheel, version, work):
    """A fresh venv of python, the wheel installed into it offline, used
    from work. The interpreter's own pip installs into the venv (`pip
    --python`), as the venv's copy of it would: a venv made with its pip
    takes seconds more, installing pip."""
    venv = os.path.join(work, "venv")
    run([python, "-m", "venv", "--without-pip", venv], env=clean_env(), cwd=work)
    run([python, "-m", "pip", "--python", os.path.join(venv, "bin", "python"), "install", "--no-index", wheel],
        env=clean_env(), cwd=work)
    host = os.path.join(work, "host")
    os.mkdir(host)
    used = json.loads(run([os.path.join(venv, "bin", "python"), "-c", USE], cwd=work,
                          env=clean_env(MINTID_HOST_DIR=host)))
    if used["version"] != version:
        fail("%s: mintid.__version__ is %s, the wheel's name says %s" % (python, used["version"], version))
    if used["typed"] != ["__init__.pyi", "py.typed"]:
        fail("%s: the stub and py.typed are not installed beside the module: %s" % (python, used["typed"]))
    return used


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wheel-dir", required=True)
    parser.add_argument("--python", action="append", required=True,
                        help="an interpreter to install the wheel for, if it is of the wheel's version")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="mintid-wheel-test-")
    try:
        wheel = the_wheel(args.wheel_dir)
        tag, version = check_wheel(wheel, os.path.join(work, "unpacked"))
        chosen = {}
        for python in args.python:
            impl, cp, real = interpreter(python)
            if impl != "cpython" or cp != tag:
                print("%s (%s %s) is not of the wheel's CPython %s: not installed there" % (python, impl, cp, tag))
            else:
                chosen.setdefault(real, python)
        if not chosen:
            fail("no interpreter given is of the wheel's CPython %s: %s" % (tag, args.python))
        # Each in a directory of its own, at once: most of the time is pip's and venv's.
        with concurrent.futures.ThreadPoolExecutor(len(chosen)) as pool:
            jobs = {}
            for k, (real, python) in enumerate(sorted(chosen.items())):
                os.mkdir(os.path.join(work, str(k)))
                jobs[python] = pool.submit(install_and_use, python, wheel, version, os.path.join(work, str(k)))
            for python, job in jobs.items():
                used = job.result()
                print("%s: installed into a fresh venv, imported from %s, minted %s" %
                      (python, used["file"], ", ".join(map(str, used["minted"]))))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
