#!/usr/bin/env node
// Runs the test suite with node:test through tsx: every test/**/*.test.ts (Node 20's --test does not expand globs),
// or the files given as arguments. Database tests also run on PostgreSQL when TEST_DATABASE_URL is set.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (entry.endsWith('.test.ts')) out.push(full);
  }
  return out.sort();
}

const args = process.argv.slice(2);
const files = args.length > 0 ? args : findTests('test');
// Node 22 and newer take the arguments of --test as globs and run nothing for a name that matches no file, so a
// mistyped file would pass: every file named must exist.
const missing = files.filter((f) => !existsSync(f));
if (missing.length > 0) {
  console.error(`no such test file: ${missing.join(', ')}`);
  process.exit(1);
}
if (!process.env.TEST_DATABASE_URL) {
  console.log(
    '# NOTICE: TEST_DATABASE_URL is not set: database tests run on SQLite only; the PostgreSQL run is SKIPPED.',
  );
  console.log('#         Set TEST_DATABASE_URL=postgres://user@host:5432/db to run them on PostgreSQL too.');
}
// Browser tests (test/web) drive the built dashboard. Build it first (a couple of seconds with Vite) into a folder of
// this run's own, so that runs side by side never serve each other's half-written build.
let dashboardDir = null;
if (files.some((f) => f.replaceAll(path.sep, '/').includes('test/web/'))) {
  dashboardDir = mkdtempSync(path.join(os.tmpdir(), 'chute-web-dist-'));
  const build = spawnSync(
    'npx',
    [
      'vite',
      'build',
      '--config',
      'web/vite.config.ts',
      '--outDir',
      dashboardDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    { stdio: 'inherit' },
  );
  if (build.status !== 0) {
    rmSync(dashboardDir, { recursive: true, force: true });
    process.exit(build.status ?? 1);
  }
  process.env.TEST_DASHBOARD_DIR = dashboardDir;
}
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
// TAP on stdout as before, and the list of failures (scripts/failures-reporter.mjs; with TEST_SLOWEST=N the N slowest
// files after it) into a file printed at the end. (One reporter for both: a third one makes Node 20 warn of a leak.)
const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chute-test-report-'));
const failuresFile = path.join(reportDir, 'failures.txt');
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${new URL('./failures-reporter.mjs', import.meta.url).href}`,
    `--test-reporter-destination=${failuresFile}`,
    ...files,
  ],
  { stdio: 'inherit' },
);
const failures = existsSync(failuresFile) ? readFileSync(failuresFile, 'utf8') : '';
if (failures) process.stdout.write(failures);
rmSync(reportDir, { recursive: true, force: true });
if (dashboardDir) rmSync(dashboardDir, { recursive: true, force: true });
process.exit(result.status ?? 1);
