// SPDX-License-Identifier: MIT
// The package's types under tsc (TypeScript as node/package-lock.json pins
// it), from an ESM and a CommonJS program that import 'mintid' and
// 'mintid/compat' as a project that installed it does: every call of
// types/use.* type-checks with the types it states, and every line of
// types/mistakes.mts (a misspelt format, a form or option no call takes, a
// wrong type) fails to, or tsc says its @ts-expect-error is unused; and
// the TypeScript examples of docs/node.md (MINTID_DOCS) type-check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pkg, here } from './helpers/env.mjs';

const modules = path.join(here, '..', 'node_modules');
const tsc = path.join(modules, 'typescript', 'bin', 'tsc');

test('tsc: the types of use.mts, use.cts and the docs hold, and every mistake of mistakes.mts is refused', () => {
  assert.ok(fs.existsSync(tsc), `no TypeScript in ${modules}: make deps-node installs it (npm ci --prefix node)`);
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'mintid-tsc-'));
  try {
    fs.mkdirSync(path.join(project, 'node_modules'));
    fs.symlinkSync(pkg, path.join(project, 'node_modules', 'mintid'));
    fs.symlinkSync(path.join(modules, '@types'), path.join(project, 'node_modules', '@types'));
    for (const f of fs.readdirSync(path.join(here, 'types'))) {
      fs.copyFileSync(path.join(here, 'types', f), path.join(project, f));
    }
    const docs = fs.readFileSync(process.env.MINTID_DOCS, 'utf8');
    const examples = [...docs.matchAll(/^```ts\n([\s\S]*?)^```\n/gm)].map((m) => m[1]);
    assert.ok(examples.length >= 1, 'docs/node.md has TypeScript examples');
    const config = JSON.parse(fs.readFileSync(path.join(project, 'tsconfig.json'), 'utf8'));
    examples.forEach((code, i) => {
      fs.writeFileSync(path.join(project, `docs-${i + 1}.mts`), code);
      config.files.push(`docs-${i + 1}.mts`);
    });
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(config));
    const p = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
    assert.equal(p.status, 0, `tsc:\n${p.stdout}${p.stderr}`);
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
});
