# SPDX-License-Identifier: MIT
"""redis-py (Debian's python3-redis) against mintidd, with its defaults.

The port is MINTID_RESP_PORT; MINTID_SECRET, when set, is the password;
MINTID_TLS_CA, when set, means TLS with that CA file.
Prints one JSON object: one ID, a batch, 100 in a pipeline (redis-py's
default pipeline is a MULTI/EXEC transaction), 100 in a plain pipeline, an
error.
"""

import json
import os

import redis

ca = os.environ.get("MINTID_TLS_CA")
tls = {"ssl": True, "ssl_ca_certs": ca} if ca else {}
r = redis.Redis(host="127.0.0.1", port=int(os.environ["MINTID_RESP_PORT"]),
                password=os.environ.get("MINTID_SECRET") or None, decode_responses=True, **tls)
one = r.execute_command("MINT", "nanoflake")
batch = r.execute_command("MINT", "nanoflake", 5)
p = r.pipeline()
for _ in range(100):
    p.execute_command("MINT", "scru160")
many = p.execute()
p = r.pipeline(transaction=False)
for _ in range(3):
    p.execute_command("MINT", "ulid-flake")
tx = p.execute()
try:
    r.execute_command("MINT", "no-such-format")
    error = None
except redis.ResponseError as e:
    error = str(e)
print(json.dumps({"one": one, "batch": batch, "many": many, "tx": tx, "error": error}))
r.close()
