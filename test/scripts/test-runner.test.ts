// scripts/test.mjs (npm test): a test file named on its command line that does not exist fails the run, on every
// Node version (Node 22 and newer would take the name as a glob that matches nothing, run nothing and pass).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

it('fails, naming the file, when a test file it is given does not exist', () => {
  const run = spawnSync(
    process.execPath,
    ['scripts/test.mjs', 'test/lib/byte-range.test.ts', 'test/lib/no-such-file.test.ts'],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
  );
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stderr, /no such test file: test\/lib\/no-such-file\.test\.ts/);
});
