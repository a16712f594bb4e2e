// SPDX-License-Identifier: MIT
// ioredis against mintidd, with its defaults (the ready check's INFO, CLIENT
// SETINFO). The port is MINTID_RESP_PORT; MINTID_SECRET, when set, is the
// password; MINTID_TLS_CA, when set, means TLS with that CA file. Prints one JSON object: one ID, a batch, 100 pipelined, a
// transaction, an error.
import { readFileSync } from 'node:fs';
import Redis from 'ioredis';

const ca = process.env.MINTID_TLS_CA;

const redis = new Redis({
  host: '127.0.0.1',
  port: Number(process.env.MINTID_RESP_PORT),
  password: process.env.MINTID_SECRET || undefined,
  lazyConnect: true,
  retryStrategy: () => null,
  ...(ca ? { tls: { ca: readFileSync(ca) } } : {}),
});
redis.on('error', (e) => { console.error('ioredis:', e.message); process.exit(1); });
await redis.connect();
const one = await redis.call('MINT', 'nanoflake');
const batch = await redis.call('MINT', 'nanoflake', '5');
const pipeline = redis.pipeline();
for (let i = 0; i < 100; i++) pipeline.call('MINT', 'scru160');
const many = (await pipeline.exec()).map(([err, id]) => { if (err) throw err; return id; });
const tx = (await redis.multi().call('MINT', 'ulid-flake').call('MINT', 'ulid-flake', '2').exec()).map(([, v]) => v);
let error = null;
try {
  await redis.call('MINT', 'no-such-format');
} catch (e) {
  error = e.message;
}
console.log(JSON.stringify({ one, batch, many, tx, error }));
await redis.quit();
