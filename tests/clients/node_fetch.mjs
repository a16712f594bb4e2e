// SPDX-License-Identifier: MIT
// Node's built-in fetch against mintidd's HTTP API. The port is
// MINTID_HTTP_PORT; MINTID_SECRET, when set, goes in `Authorization: Bearer`;
// with MINTID_TLS_CA set it is HTTPS, the CA given to Node as
// NODE_EXTRA_CA_CERTS (fetch takes no CA of its own).
// Prints one JSON object: one ID, a batch, 100 requests at once, an error.
const scheme = process.env.MINTID_TLS_CA ? 'https' : 'http';
const base = `${scheme}://127.0.0.1:${process.env.MINTID_HTTP_PORT}`;
const headers = process.env.MINTID_SECRET ? { Authorization: `Bearer ${process.env.MINTID_SECRET}` } : {};
async function get(path, extra = {}) {
  const r = await fetch(base + path, { headers: { ...headers, ...extra } });
  const body = await r.text();
  if (!r.ok) throw new Error(`${r.status} ${body.trim()}`);
  return body;
}
const one = (await get('/v1/nanoflake')).trim();
const batch = JSON.parse(await get('/v1/nanoflake?count=5', { Accept: 'application/json' })).ids;
const many = await Promise.all(Array.from({ length: 100 }, async () => (await get('/v1/scru160')).trim()));
let error = null;
try {
  await get('/v1/no-such-format');
} catch (e) {
  error = e.message;
}
console.log(JSON.stringify({ one, batch, many, error }));
