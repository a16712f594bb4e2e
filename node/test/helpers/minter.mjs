// SPDX-License-Identifier: MIT
// One of the minters of hostwide.test.mjs: a cluster worker, a child
// process or a worker thread. It loads mintid, says it is ready, waits for
// the word to go, mints COUNT IDs of each format of FORMATS with gen(), in
// turn, one at a time and in small batches, and sends them back in the
// order it minted them.
import { parentPort } from 'node:worker_threads';
import { pkg, require } from './env.mjs';

export const FORMATS = ['nanoflake', 'uuidv7', 'ulid'];
export const COUNT = 1500;

function mintAll(mintid) {
  const ids = Object.fromEntries(FORMATS.map((f) => [f, []]));
  for (let i = 0; i < COUNT;) {
    const k = i % 7 === 0 ? Math.min(5, COUNT - i) : 1;
    for (const f of FORMATS) {
      if (k === 1) ids[f].push(mintid.gen(f, { form: 'hex' }));
      else ids[f].push(...mintid.gen(f, k, { form: 'hex' }));
    }
    i += k;
  }
  return ids;
}

const channel = parentPort ?? (process.send ? process : null);
if (channel) {
  const mintid = require(pkg);
  const send = (m) => (parentPort ? parentPort.postMessage(m) : process.send(m));
  channel.once('message', () => {
    send({ ids: mintAll(mintid), pid: process.pid });
    if (!parentPort) process.disconnect();
  });
  send({ ready: true });
}
