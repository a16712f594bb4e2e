#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The Node.js package against the npm packages people mint these IDs with,
// side by side.
//
//   node bench/bench_node.mjs [PACKAGE] [--rounds N] [--ms M]
//
// PACKAGE is the staged package (default build/node/package, which
// `make node` builds); uuid and ulid come from node/node_modules, at the
// versions node/package-lock.json pins (`make deps-node`). Three
// comparisons, each timed in interleaved rounds (mintid for M ms, then
// the baseline for M ms, then mintid again, ...) so that a busy moment of
// a shared machine falls on both; the medians of the rates are printed with
// their ratio (above 1: mintid is faster), in wall time and in CPU time:
//
//   - one UUIDv7 per call: gen('uuidv7') against uuid's v7();
//   - a thousand at once: gen('uuidv7', 1000) against a loop of 1000 v7();
//   - one ULID per call: gen('ulid') against ulid's monotonicFactory()().
//
// gen() draws from the host-wide generator (the default), so each call
// takes the host-wide state's lock. Nothing here asserts a timing.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const here = path.dirname(new URL(import.meta.url).pathname);
const args = process.argv.slice(2);
const option = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args.splice(i, 2)[1]);
  if (!Number.isInteger(v) || v < 1) {
    console.error(`bench_node: ${name} takes a whole number from 1`);
    process.exit(2);
  }
  return v;
};
const rounds = option('--rounds', 7), slice = option('--ms', 300);
const pkg = path.resolve(args[0] ?? path.join(here, '..', 'build', 'node', 'package'));

const require = createRequire(import.meta.url);
const fromNode = createRequire(path.join(here, '..', 'node', 'package.json'));
let mintid, uuid, ulid;
try {
  mintid = require(pkg);
  uuid = await import(pathToFileURL(fromNode.resolve('uuid')).href);
  ulid = await import(pathToFileURL(fromNode.resolve('ulid')).href);
} catch (e) {
  console.error(`bench_node: ${e.message}\n(the package comes from make node, uuid and ulid from make deps-node)`);
  process.exit(2);
}
const versions = Object.fromEntries(['uuid', 'ulid'].map((n) => [n, fromNode(`${n}/package.json`).version]));

// Calls per second of fn, called `per` at a time until `ms` have passed: [wall, cpu].
function rate(fn, ms, per) {
  let calls = 0;
  const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
  const end = t0 + BigInt(ms) * 1000000n;
  let now;
  do {
    for (let i = 0; i < per; i++) fn();
    calls += per;
  } while ((now = process.hrtime.bigint()) < end);
  const c = process.cpuUsage(c0);
  return [calls / (Number(now - t0) / 1e9), calls / ((c.user + c.system) / 1e6)];
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function compare(title, unit, per, ours, theirs) {
  rate(ours, 100, per); // warm up: the host-wide state opened, the code compiled
  rate(theirs, 100, per);
  const runs = { ours: [], theirs: [] };
  for (let r = 0; r < rounds; r++) {
    runs.ours.push(rate(ours, slice, per));
    runs.theirs.push(rate(theirs, slice, per));
  }
  const m = (side, k) => median(runs[side].map((x) => x[k]));
  const shown = (v) => (v >= 1e6 ? `${(v / 1e6).toFixed(2)} M` : v >= 1e3 ? `${(v / 1e3).toFixed(1)} k` : v.toFixed(0));
  const ratios = (k) => runs.ours.map((x, i) => x[k] / runs.theirs[i][k]);
  console.log(title);
  console.log(`  mintid    ${shown(m('ours', 0))} ${unit}/s (CPU: ${shown(m('ours', 1))} ${unit}/s)`);
  console.log(`  baseline  ${shown(m('theirs', 0))} ${unit}/s (CPU: ${shown(m('theirs', 1))} ${unit}/s)`);
  const wall = ratios(0), cpu = ratios(1);
  console.log(`  ratio     ${median(wall).toFixed(2)} (rounds ${Math.min(...wall).toFixed(2)}–${Math.max(...wall).toFixed(2)}); ` +
              `CPU ${median(cpu).toFixed(2)} (rounds ${Math.min(...cpu).toFixed(2)}–${Math.max(...cpu).toFixed(2)})`);
}

console.log(`mintid ${mintid.version} (${pkg}), uuid ${versions.uuid}, ulid ${versions.ulid}, node ${process.version}; ` +
            `${rounds} rounds of ${slice} ms each`);
const { gen } = mintid;
const { v7 } = uuid;
compare("one UUIDv7 per call: gen('uuidv7') / uuid v7()", 'IDs', 100, () => gen('uuidv7'), () => v7());
compare("a batch of 1000 UUIDv7: gen('uuidv7', 1000) / a loop of 1000 uuid v7()", 'batches', 1,
        () => gen('uuidv7', 1000), () => {
          const ids = new Array(1000);
          for (let i = 0; i < 1000; i++) ids[i] = v7();
          return ids;
        });
const next = ulid.monotonicFactory();
compare("one ULID per call: gen('ulid') / ulid monotonicFactory()()", 'IDs', 100, () => gen('ulid'), () => next());
