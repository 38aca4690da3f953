// scripts/durations-reporter.mjs (TEST_SLOWEST in scripts/test.mjs): the slowest test files of a run, each timed by
// the sum of its top-level tests, listed slowest first. Run here on two real test files in node:test's own runner.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';

it('lists the files by the time their top-level tests took, slowest first, at most TEST_SLOWEST of them', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-durations-'));
  try {
    const wait = (ms: number) => `await new Promise((resolve) => setTimeout(resolve, ${ms}));`;
    // slow: two top-level tests (one a suite) that wait a second each; quick: one that waits 100 ms; none: one that
    // does nothing, left out of a list of two. (Waits at least that long, so the order holds on a busy machine too.)
    await writeFile(
      path.join(dir, 'slow.test.mjs'),
      `import { describe, it } from 'node:test';\n` +
        `it('a', async () => { ${wait(1000)} });\n` +
        `describe('b', () => { it('c', async () => { ${wait(1000)} }); });\n`,
    );
    await writeFile(
      path.join(dir, 'quick.test.mjs'),
      `import { it } from 'node:test';\nit('d', async () => { ${wait(100)} });\n`,
    );
    await writeFile(path.join(dir, 'none.test.mjs'), `import { it } from 'node:test';\nit('e', () => {});\n`);
    const reporter = new URL('../../scripts/durations-reporter.mjs', import.meta.url).href;
    const run = spawnSync(
      process.execPath,
      ['--test', `--test-reporter=${reporter}`, 'slow.test.mjs', 'quick.test.mjs', 'none.test.mjs'],
      // Without NODE_TEST_CONTEXT, which would make the runner report to this test's runner instead of its reporter.
      { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined, TEST_SLOWEST: '2' } },
    );
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines[0], '# the 2 slowest test files (seconds in their top-level tests):');
    assert.equal(lines.length, 3, run.stdout);
    const [slow, quick] = lines.slice(1).map((line) => /^# +(\d+\.\d) {2}(.+)$/.exec(line));
    assert.equal(slow?.[2], 'slow.test.mjs');
    assert.equal(quick?.[2], 'quick.test.mjs');
    assert.ok(Number(slow![1]) >= 2, `both of slow's top-level tests counted: ${slow![1]}`);
    assert.ok(Number(quick![1]) >= 0.1, quick![1]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
