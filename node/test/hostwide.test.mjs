// SPDX-License-Identifier: MIT
// The host-wide generator, mintid's default: 4 cluster workers, 2 child
// processes and 4 worker threads minting at once continue one strictly
// increasing sequence per format. Every ID of every minter is checked
// against every other (no two alike: nanoflake on node 0, whose sequence
// counts from 0 in each millisecond, repeats IDs at once if two minters
// keep sequences of their own), each minter's IDs rise, and every one lies
// between an ID the test mints before the word to go and one it mints
// after the last minter is done. Then the addon loaded and unloaded in
// worker threads, round after round, beside the main thread's minting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { fork } from 'node:child_process';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { pkg, require, here } from './helpers/env.mjs';
import { FORMATS, COUNT } from './helpers/minter.mjs';

const mintid = require(pkg);
const MINTER = path.join(here, 'helpers', 'minter.mjs');

// A minter: its channel's messages as promises, and how to tell it to go.
function minter(kind, channel, go, stop) {
  const messages = [];
  let waiting = null;
  channel.on('message', (m) => (waiting ? (waiting(m), (waiting = null)) : messages.push(m)));
  channel.on('error', (e) => { throw e; });
  const next = () => (messages.length ? Promise.resolve(messages.shift()) : new Promise((r) => (waiting = r)));
  return { kind, next, go, stop };
}

test('4 cluster workers, 2 child processes and 4 worker threads continue one sequence per format', async () => {
  cluster.setupPrimary({ exec: MINTER });
  const minters = [];
  for (let i = 0; i < 4; i++) {
    const w = cluster.fork();
    minters.push(minter('cluster worker', w, () => w.send('go'), () => w.process.kill()));
  }
  for (let i = 0; i < 2; i++) {
    const c = fork(MINTER);
    minters.push(minter('child process', c, () => c.send('go'), () => c.kill()));
  }
  for (let i = 0; i < 4; i++) {
    const t = new Worker(MINTER);
    minters.push(minter('worker thread', t, () => t.postMessage('go'), () => t.terminate()));
  }
  try {
    for (const m of minters) assert.deepEqual(await m.next(), { ready: true });
    const before = Object.fromEntries(FORMATS.map((f) => [f, mintid.gen(f, { form: 'hex' })]));
    for (const m of minters) m.go();
    const got = [];
    for (const m of minters) got.push({ kind: m.kind, ...(await m.next()) });
    const after = Object.fromEntries(FORMATS.map((f) => [f, mintid.gen(f, { form: 'hex' })]));
    assert.equal(new Set(got.map((g) => g.pid)).size, 7, 'six processes of their own, and this one for the threads');
    for (const f of FORMATS) {
      const all = new Map();
      for (const g of got) {
        const ids = g.ids[f];
        assert.equal(ids.length, COUNT);
        for (let i = 0; i < ids.length; i++) {
          if (i > 0) assert.ok(ids[i - 1] < ids[i], `${f}: a ${g.kind}'s IDs rise`);
          assert.ok(before[f] < ids[i] && ids[i] < after[f], `${f}: ${ids[i]} is within the test's two IDs`);
          const had = all.get(ids[i]);
          assert.equal(had, undefined, `${f}: ${ids[i]} minted by a ${g.kind} and by a ${had}`);
          all.set(ids[i], g.kind);
        }
      }
      assert.equal(all.size, minters.length * COUNT);
    }
  } finally {
    for (const m of minters) m.stop();
  }
});

test('the addon in worker threads: loaded, used and unloaded, round after round', async () => {
  const code = `
    const { parentPort } = require('node:worker_threads');
    const m = require(${JSON.stringify(pkg)});
    const g = new m.Generator('snowflake', { node: 9, form: 'bigint' });
    const ids = [...m.gen('snowflake', 200, { node: 9, form: 'bigint' }), ...g.nextMany(200)];
    let failed = null;
    try { m.gen('nope'); } catch (e) { failed = e instanceof m.UnknownFormatError && e.code; }
    parentPort.postMessage({ ids, failed });`;
  const seen = new Set();
  const mine = [];
  for (let round = 0; round < 3; round++) {
    const workers = Array.from({ length: 4 }, () => new Worker(code, { eval: true }));
    const results = workers.map((w) => new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    }));
    mine.push(...mintid.gen('snowflake', 200, { node: 9, form: 'bigint' }));
    for (const r of await Promise.all(results)) {
      assert.equal(r.failed, 'MINTID_EFORMAT', "each thread's own error classes");
      for (const id of r.ids) {
        assert.ok(!seen.has(id), `${id} twice`);
        seen.add(id);
      }
    }
    await Promise.all(workers.map((w) => w.terminate()));
  }
  for (const id of mine) assert.ok(!seen.has(id), `${id} in a thread and in the main thread`);
  assert.equal(seen.size, 3 * 4 * 400);
});
