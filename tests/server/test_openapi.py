# SPDX-License-Identifier: MIT
"""test_openapi.py - docs/openapi.yaml against a running mintidd.

Routes: the paths the server matches are read from server/http/http_routes.c
(its route table), the methods from server/http/http.c, the query
parameters each route takes are found by asking the server, the formats and
forms from GET /v1/formats, and the statuses from every place the HTTP files
answer one: each must be in the spec, and the spec must have nothing the
server lacks. Variations of every path in the spec must be 404.

Examples: every example in the spec is sent as the spec's info.description
says and answered as described: status, Content-Type, the headers the
spec fixes, and the body, exactly or (for IDs and times) by its pattern or
its JSON schema and shape.

Usage: python3 test_openapi.py --mintidd PATH [--spec docs/openapi.yaml] [--no-faketime]
"""

import argparse
import copy
import json
import os
import re
import socket
import sys
import tempfile
import time
import unittest
import urllib.parse

import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, have_faketime, http_raw  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MINTIDD = None
SPEC_PATH = os.path.join(ROOT, "docs", "openapi.yaml")
FAKETIME = True
SECRET = "s3cret"
METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]


def resolve(spec, node):
    """node with its $ref followed (local references only), recursively for dicts with one."""
    seen = 0
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), ref
        target = spec
        for part in ref[2:].split("/"):
            assert part in target, f"{ref} does not resolve"
            target = target[part]
        node = target
        seen += 1
        assert seen < 10, f"{ref}: a reference loop"
    return node


def inline_refs(spec, node):
    """A copy of a schema with every $ref replaced by what it names (the spec's schemas are not recursive)."""
    node = resolve(spec, node)
    if isinstance(node, dict):
        return {k: inline_refs(spec, v) for k, v in node.items()}
    if isinstance(node, list):
        return [inline_refs(spec, v) for v in node]
    return node


def parse_responses(data, head=False):
    """The HTTP responses in data, in order: (status, headers dict with lower-case names, body bytes)."""
    out = []
    while data:
        end = data.find(b"\r\n\r\n")
        assert end >= 0, f"an incomplete response head: {data[:200]!r}"
        lines = data[:end].decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = 0 if head else int(headers.get("content-length", "0"))
        body = data[end + 4:end + 4 + length]
        assert len(body) == length, f"a short body: {data!r}"
        out.append((status, headers, body))
        data = data[end + 4 + length:]
    return out


def same_shape(got, want, where="body"):
    """got has want's JSON shape: the same keys, value types and array lengths."""
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{where}: {got!r} is not an object"
        assert sorted(got) == sorted(want), f"{where}: keys {sorted(got)} are not {sorted(want)}"
        for k in want:
            same_shape(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r} is not {len(want)} items"
        for i, (g, w) in enumerate(zip(got, want)):
            same_shape(g, w, f"{where}[{i}]")
    else:
        assert type(got) is type(want), f"{where}: {got!r} is not a {type(want).__name__}"


class Spec(unittest.TestCase):
    servers = {}
    spec = None

    @classmethod
    def setUpClass(cls):
        with open(SPEC_PATH) as f:
            cls.spec = yaml.safe_load(f)
        cls.tmp = tempfile.TemporaryDirectory(prefix="mintid-openapi-")
        cls.servers = {}
        cls.held = []

    @classmethod
    def tearDownClass(cls):
        for s in cls.held:
            s.close()
        failed = []
        for name, srv in cls.servers.items():
            status, log = srv.stop()
            srv.__exit__(None, None, None)
            if status != 0:
                failed.append(f"{name}: exit status {status}\n{log}")
        cls.tmp.cleanup()
        assert not failed, "\n".join(failed)

    def server(self, kind="plain"):
        """The server an example names, started on first use."""
        if kind in self.servers:
            return self.servers[kind]
        args, faketime = ["--node", "100"], None
        if kind == "auth":
            path = os.path.join(self.tmp.name, "secrets")
            with open(path, "w") as f:
                f.write(SECRET + "\n")
            os.chmod(path, 0o600)
            args += ["--auth-file", path]
        elif kind == "one-connection":
            # max-connections is each worker's: one worker.
            args += ["--max-connections", "1", "--workers", "1"]
        elif kind == "year-2160":
            faketime = "@2160-01-01 00:00:00"
        else:
            assert kind == "plain", f"no server '{kind}'"
        srv = Server(MINTIDD, args=args, faketime=faketime).start()
        self.servers[kind] = srv
        if kind == "one-connection":
            # The one connection it takes, with a request answered: the next
            # is refused. (The start's probes of the ports may still hold the
            # place for a moment: a refused try is made again, a few times.)
            for _ in range(50):
                s = socket.create_connection(("127.0.0.1", srv.http_port), timeout=5)
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                try:
                    answer = s.recv(4096)
                except ConnectionResetError:
                    answer = b""
                if b"200 OK" in answer:
                    self.held.append(s)
                    break
                s.close()
                time.sleep(0.1)
            else:
                raise AssertionError("no connection to the one-connection server was served")
        return srv

    def request(self, target, method="GET", accept_json=False, extra=None, kind="plain"):
        """Sends one request (`repeat` times with extra["repeat"]) on one connection; the last answer."""
        extra = extra or {}
        lines = [f"{method} {target} {extra.get('version', 'HTTP/1.1')}"]
        if extra.get("host", True):
            lines.append("Host: 127.0.0.1")
        if accept_json:
            lines.append("Accept: application/json")
        if "authorization" in extra:
            lines.append(f"Authorization: {extra['authorization']}")
        for name, value in extra.get("headers", {}).items():
            lines.append(f"{name}: {value}")
        if "pad-header" in extra:
            lines.append("X-Pad: " + "x" * int(extra["pad-header"]))
        repeat = int(extra.get("repeat", 1))
        keep = "\r\n".join(lines).encode() + b"\r\n\r\n"
        last = "\r\n".join(lines + ["Connection: close"]).encode() + b"\r\n\r\n"
        data = http_raw(self.server(kind).http_port, keep * (repeat - 1) + last, timeout=10)
        answers = parse_responses(data, head=method == "HEAD")
        self.assertTrue(answers, f"no answer to {target}")
        return answers[-1]

    def get(self, target, **kw):
        return self.request(target, **kw)

    # ---- the spec itself ------------------------------------------------------

    def operations(self):
        """(path, method, operation, path-level parameters) of every operation."""
        for path, item in self.spec["paths"].items():
            for method in METHODS:
                if method in item:
                    yield path, method, item[method], item.get("parameters", [])

    def test_every_reference_resolves(self):
        self.assertEqual(self.spec["openapi"], "3.1.0")

        def walk(node):
            if isinstance(node, dict):
                if "$ref" in node:
                    resolve(self.spec, node)
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)
        walk(self.spec)

    def test_schemas_are_valid(self):
        for name, schema in self.spec["components"]["schemas"].items():
            with self.subTest(schema=name):
                jsonschema.Draft202012Validator.check_schema(inline_refs(self.spec, schema))

    # ---- (a) every route the server serves is in the spec ---------------------

    def source(self, name):
        with open(os.path.join(ROOT, "server", name)) as f:
            return f.read()

    def example_path(self, path):
        """path with each template filled from the examples of a plain GET."""
        values = {"format": "nanoflake", "id": "1c49kkphl4ow", "key": "k"}
        return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)

    def test_routes_of_the_server_are_the_spec_paths(self):
        # Each path the router compares the target with: a whole path, or a
        # prefix (ending in '/') that a template follows.
        literals = set(re.findall(r'\{GET_HEAD, "(/[^"]*)",', self.source("http/http_routes.c")))
        self.assertGreaterEqual(len(literals), 4, literals)
        spec_literals = {re.sub(r"\{.*", "", p) for p in self.spec["paths"]}
        # "/v1/range/{format}" and "/v1/{format}": the longest literal prefix is what the router compares.
        self.assertEqual(literals, spec_literals,
                         "the server's routes (server/http/http_routes.c) and the spec's paths differ")
        plain = self.server()
        # The example key, given its IDs.
        self.request("/v1/nanoflake", method="POST", extra={"headers": {"Idempotency-Key": '"k"'}})
        for path in self.spec["paths"]:
            with self.subTest(path=path):
                status, _, body = self.get(self.example_path(path))
                self.assertNotIn(b"no such resource", body)
                self.assertNotEqual(status, 404, body)

    def test_paths_beside_the_spec_are_404(self):
        probes = set()
        for path in self.spec["paths"]:
            p = self.example_path(path)
            probes |= {p + "/", p + "/x", p + "x", p.upper(), p.replace("/v1/", "/v2/"), "/api" + p,
                       p.replace("/v1/", "/") if p.startswith("/v1/") else "/v1" + p}
            literal = re.sub(r"\{.*", "", path)
            if literal.endswith("/"):
                probes.add(literal)
        # Those the spec's paths match, templates included, are not variations.
        formats = "|".join(map(re.escape, self.spec["components"]["schemas"]["FormatName"]["enum"]))
        values = {"format": f"(?:{formats})", "id": "[^/]+", "key": "[^/]+"}
        spec_paths = [re.compile(re.sub(r"\\\{(\w+)\\\}", lambda m: values[m.group(1)], re.escape(p)) + r"\Z")
                      for p in self.spec["paths"]]
        probes = {t for t in probes if not any(r.match(t) for r in spec_paths)}
        self.assertGreater(len(probes), 20)
        for target in sorted(probes):
            with self.subTest(target=target):
                status, _, body = self.get(target)
                self.assertEqual(status, 404, body)

    def test_methods(self):
        # The methods the parser tells apart; every path takes GET and HEAD,
        # some POST, and anything else is 405 with the path's methods in Allow.
        served = {m.lower() for m in re.findall(r'memcmp\(m, "([A-Z]+)", \d\)', self.source("http/http.c"))}
        self.assertEqual(served, {"get", "head", "post"})
        for path, item in self.spec["paths"].items():
            with self.subTest(path=path):
                allowed = {m for m in METHODS if m in item}
                self.assertLessEqual({"get", "head"}, allowed)
                self.assertLessEqual(allowed, served)
                allow = ", ".join(m.upper() for m in ("get", "head", "post") if m in allowed)
                for method in ("POST", "PUT", "DELETE", "OPTIONS", "PATCH"):
                    if method.lower() in allowed:
                        continue
                    status, headers, _ = self.get(self.example_path(path), method=method)
                    self.assertEqual(status, 405)
                    self.assertEqual(headers["allow"], allow)
                    self.assertIn("405", item["get"]["responses"])

    def test_query_parameters(self):
        # Every name the router's parse_query() is given, and one it is not:
        # which of them each path takes is the server's answer, not a list here.
        names = set(re.findall(r'\{"([a-z_]+)", NULL, 0, false\}', self.source("http/http_routes.c")))
        self.assertGreaterEqual(len(names), 5, names)
        for path, item in self.spec["paths"].items():
            declared = {p["name"] for p in item["get"].get("parameters", []) if p["in"] == "query"}
            self.assertLessEqual(declared, names, f"{path}: the spec has parameters no route takes")
            taken = set()
            for name in sorted(names | {"nosuchparameter"}):
                status, _, body = self.get(self.example_path(path) + f"?{name}=1")
                if b"unknown query parameter" not in body:
                    taken.add(name)
            with self.subTest(path=path):
                if "nosuchparameter" in taken:
                    # A route that reads no query at all ignores it.
                    self.assertEqual(declared, set(), f"{path} ignores its query")
                else:
                    self.assertEqual(taken, declared, f"{path}: the query parameters it takes")
                for p in item.get("head", {}).get("parameters", []):
                    self.assertIn(p["name"], declared, f"{path}: HEAD's parameters are GET's")

    def test_formats_and_forms_are_the_table(self):
        status, _, body = self.get("/v1/formats")
        self.assertEqual(status, 200)
        table = json.loads(body)
        schemas = self.spec["components"]["schemas"]
        self.assertEqual(schemas["FormatName"]["enum"], [f["name"] for f in table])
        forms = {form for f in table for form in f["forms"]}
        self.assertEqual(set(schemas["Form"]["enum"]), forms)
        for f in table:
            with self.subTest(format=f["name"]):
                status, _, body = self.get(f"/v1/{f['name']}")
                self.assertIn(status, (200, 404) if not f["served"] else (200,), body)

    def test_statuses(self):
        # Every status a call in the HTTP files can answer, and the refusal's.
        code = "".join(self.source(f"http/{name}.c") for name in ("handle_http", "http_routes", "http_reply", "http"))
        sent = set()
        for line in code.splitlines():
            if re.search(r"send_error(_with)?\(|\bfail\(|response \w+ = \{|HTTP/1\.1 \d{3}", line):
                sent |= {int(s) for s in re.findall(r"\b([2-5]\d\d)\b", line)}
        self.assertGreaterEqual(len(sent), 10, sent)
        documented = set()
        for path, method, op, _ in self.operations():
            if method in ("get", "post"):
                documented |= {int(s) for s in op["responses"]}
        self.assertEqual(documented, sent, "statuses the server sends and the spec's")

    # ---- (b) every example is answered as described ---------------------------

    def examples(self):
        """(where, request target, method, status, media type, response, example) of every GET example."""
        done = set()
        for path, method, op, path_params in self.operations():
            if method != "get":
                continue
            params = [resolve(self.spec, p) for p in path_params + op.get("parameters", [])]
            for status, response in op["responses"].items():
                response = resolve(self.spec, response)
                for media, content in response.get("content", {}).items():
                    for name, example in content.get("examples", {}).items():
                        example = resolve(self.spec, example)
                        if id(example) in done:
                            continue
                        done.add(id(example))
                        extra = example.get("x-mintid-request", {})
                        target = extra.get("target")
                        if target is None:
                            values, query = {}, []
                            for p in params:
                                ex = p.get("examples", {}).get(name)
                                if ex is None:
                                    continue
                                if p["in"] == "path":
                                    values[p["name"]] = urllib.parse.quote(str(ex["value"]), safe="")
                                else:
                                    query.append((p["name"], str(ex["value"])))
                            target = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)
                            if query:
                                target += "?" + urllib.parse.urlencode(query)
                        yield (f"{path} {status} {media} {name}", target, extra, int(status), media, response,
                               example)

    def test_every_example(self):
        count = 0
        for where, target, extra, status, media, response, example in self.examples():
            kind = extra.get("server", "plain")
            with self.subTest(example=where, target=target):
                if kind == "year-2160" and not FAKETIME:
                    continue
                count += 1
                got_status, headers, body = self.request(target, method=extra.get("method", "GET"),
                                                         accept_json=media == "application/json", extra=extra,
                                                         kind=kind)
                self.assertEqual((got_status, headers.get("content-type")), (status, media), body)
                for name, header in response.get("headers", {}).items():
                    want = resolve(self.spec, header)["schema"].get("const")
                    if want is not None:
                        self.assertEqual(headers.get(name.lower()), want, name)
                schema = inline_refs(self.spec, response["content"][media].get("schema", {}))
                value = example["value"]
                if media == "application/json":
                    doc = json.loads(body)
                    jsonschema.validate(value, schema, cls=jsonschema.Draft202012Validator)
                    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
                    if example.get("x-mintid-shape"):
                        same_shape(doc, value)
                    else:
                        self.assertEqual(doc, value)
                else:
                    text = body.decode()
                    jsonschema.validate(value, schema, cls=jsonschema.Draft202012Validator)
                    jsonschema.validate(text, schema, cls=jsonschema.Draft202012Validator)
                    pattern = example.get("x-mintid-pattern")
                    if pattern is not None:
                        self.assertRegex(value, "^" + pattern + r"\Z", "the example's own value")
                        self.assertRegex(text, "^" + pattern + r"\Z")
                    else:
                        self.assertEqual(text, value)
                # HEAD: the same head, no body.
                if status == 200 and kind == "plain" and "method" not in extra:
                    h_status, h_headers, h_body = self.request(target, method="HEAD",
                                                               accept_json=media == "application/json")
                    self.assertEqual((h_status, h_headers.get("content-type")), (status, media))
                    self.assertEqual(h_body, b"")
                    self.assertIn("content-length", h_headers)
        self.assertGreaterEqual(count, 25)


def main():
    global MINTIDD, SPEC_PATH, FAKETIME
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--spec", default=SPEC_PATH)
    ap.add_argument("--no-faketime", action="store_true", help="skip the examples of a server with a faked clock")
    args, rest = ap.parse_known_args()
    MINTIDD, SPEC_PATH = os.path.abspath(args.mintidd), os.path.abspath(args.spec)
    FAKETIME = not args.no_faketime and have_faketime()
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
