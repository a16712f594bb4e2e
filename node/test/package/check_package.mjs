// SPDX-License-Identifier: MIT
// The npm package as a user gets it: the tarball of `make node`
// (MINTID_NODE_TARBALL) installed with npm (MINTID_NPM), offline, into an
// empty project, with a PATH that holds node alone, so that neither npm
// nor the package can compile anything (no cc, no make, no Python); then
// loaded there through 'mintid' and 'mintid/compat', CommonJS and ESM, and
// every example of docs/node.md (MINTID_DOCS) run in it: each ```js block
// as a program whose output must be the ```text block after it, if any
// (types.test.mjs puts its ```ts blocks under tsc).
//
//   node node/test/package/check_package.mjs     (ctest -R test_node_package)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const { MINTID_NODE_TARBALL: tarball, MINTID_NPM: npm, MINTID_DOCS: docs } = process.env;
for (const [name, value] of Object.entries({ MINTID_NODE_TARBALL: tarball, MINTID_NPM: npm, MINTID_DOCS: docs })) {
  if (!value || !fs.existsSync(value)) {
    console.error(`check_package: ${name} must name an existing file (ctest sets it), not ${value}`);
    process.exit(2);
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mintid-package-'));
const project = path.join(tmp, 'app'), bin = path.join(tmp, 'bin');
let failures = 0;

function check(what, fn) {
  try {
    fn();
    console.log(`ok - ${what}`);
  } catch (e) {
    failures++;
    console.log(`not ok - ${what}\n${String(e.message).replace(/^/gm, '  ')}`);
  }
}

// A program run in the project with node alone on PATH.
function run(args, input) {
  const env = {
    PATH: bin,
    HOME: path.join(tmp, 'home'),
    MINTID_HOST_DIR: path.join(tmp, 'host'),
    npm_config_cache: path.join(tmp, 'npm-cache'),
    npm_config_update_notifier: 'false',
  };
  return spawnSync(path.join(bin, 'node'), args, { cwd: project, env, encoding: 'utf8', input, timeout: 120000 });
}

try {
  for (const d of [project, bin, path.join(tmp, 'home'), path.join(tmp, 'host')]) fs.mkdirSync(d);
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));

  check('the tarball holds the package, its addon for linux-x64, and nothing to build', () => {
    const t = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
    assert.equal(t.status, 0, t.stderr);
    const files = t.stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, '')).sort();
    assert.deepEqual(files, ['LICENSE', 'README.md', 'lib/binding.js', 'lib/compat.d.mts', 'lib/compat.d.ts',
      'lib/compat.js', 'lib/compat.mjs', 'lib/errors.js', 'lib/index.d.mts', 'lib/index.d.ts', 'lib/index.js',
      'lib/index.mjs', 'package.json', 'prebuilds/linux-x64/mintid.napi.node']);
  });

  check('npm install --offline of the tarball, with node alone on PATH', () => {
    const p = run([fs.realpathSync(npm), 'install', '--offline', '--no-audit', '--no-fund', '--loglevel=error',
      tarball]);
    assert.equal(p.status, 0, `npm install: ${p.stdout}${p.stderr}`);
    assert.ok(fs.existsSync(path.join(project, 'node_modules', 'mintid', 'prebuilds', 'linux-x64',
                                      'mintid.napi.node')));
  });

  check('CommonJS: require("mintid") and require("mintid/compat")', () => {
    const p = run(['-e', `
      const m = require('mintid'), c = require('mintid/compat');
      const id = m.gen('uuidv7');
      console.log(m.inspect(id).format, c.version(c.v7()), m.version === require('mintid/package.json').version);`]);
    assert.equal(p.stderr, '');
    assert.equal(p.stdout, 'uuidv7 7 true\n');
  });

  check('ESM: import from "mintid" and "mintid/compat"', () => {
    const p = run(['--input-type=module', '-e', `
      import mintid, { gen, inspect, UnknownFormatError } from 'mintid';
      import { ulid, decodeTime } from 'mintid/compat';
      let code = null;
      try { gen('nope'); } catch (e) { code = e instanceof UnknownFormatError && e.code; }
      console.log(inspect(gen('ulid')).format, decodeTime(ulid(1000)), code, mintid.gen === gen);`]);
    assert.equal(p.stderr, '');
    assert.equal(p.stdout, 'ulid 1000 MINTID_EFORMAT true\n');
  });

  // docs/node.md's examples: ```js blocks (CommonJS, or ESM when they import), each with the ```text block after it.
  const text = fs.readFileSync(docs, 'utf8');
  const blocks = [...text.matchAll(/^```(\w+)\n([\s\S]*?)^```\n(?:\n```text\n([\s\S]*?)^```\n)?/gm)];
  let n = 0;
  for (const [, lang, code, output] of blocks) {
    if (lang !== 'js') continue;
    n++;
    const esm = /^import /m.test(code);
    const file = path.join(project, `example-${n}.${esm ? 'mjs' : 'cjs'}`);
    fs.writeFileSync(file, code);
    check(`docs/node.md example ${n}: ${code.split('\n').find((l) => /\S/.test(l) && !/^(const|import) /.test(l)) ??
                                       code.split('\n')[0]}`, () => {
      const p = run([file]);
      assert.equal(p.status, 0, p.stderr);
      assert.equal(p.stderr, '');
      if (output !== undefined) assert.equal(p.stdout, output);
    });
  }
  check('docs/node.md has examples', () => assert.ok(n >= 8, `${n} of them`));

} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(failures ? `${failures} failed` : 'all passed');
process.exit(failures ? 1 : 0);
