// SPDX-License-Identifier: MIT
// node-redis (the `redis` package) against mintidd, with its defaults (RESP3,
// the HELLO 3 / CLIENT SETINFO / CLIENT MAINT_NOTIFICATIONS handshake). The
// port is MINTID_RESP_PORT; MINTID_SECRET, when set, is the password;
// MINTID_TLS_CA, when set, means TLS with that CA file.
// Prints one JSON object: one ID, a batch, 100 pipelined, a transaction, an error.
import { readFileSync } from 'node:fs';
import { createClient } from 'redis';

const ca = process.env.MINTID_TLS_CA;

const client = createClient({
  socket: {
    host: '127.0.0.1',
    port: Number(process.env.MINTID_RESP_PORT),
    reconnectStrategy: false,
    ...(ca ? { tls: true, ca: readFileSync(ca) } : {}),
  },
  password: process.env.MINTID_SECRET || undefined,
});
client.on('error', (e) => { console.error('node-redis:', e.message); process.exit(1); });
await client.connect();
const one = await client.sendCommand(['MINT', 'nanoflake']);
const batch = await client.sendCommand(['MINT', 'nanoflake', '5']);
// Commands issued in the same tick go out as one pipeline.
const many = await Promise.all(Array.from({ length: 100 }, () => client.sendCommand(['MINT', 'scru160'])));
const tx = await client.multi().addCommand(['MINT', 'ulid-flake']).addCommand(['MINT', 'ulid-flake', '2']).exec();
let error = null;
try {
  await client.sendCommand(['MINT', 'no-such-format']);
} catch (e) {
  error = e.message;
}
console.log(JSON.stringify({ one, batch, many, tx, error }));
await client.close();
