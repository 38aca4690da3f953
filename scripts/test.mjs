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
// TAP on stdout as before, and the list of failures (scripts/failures-reporter.mjs) into a file printed at the end.
const reportDir = mkdtempSync(path.join(os.tmpdir(), 'chute-test-report-'));
const failuresFile = path.join(reportDir, 'failures.txt');
// With TEST_SLOWEST=N, the N slowest files too (scripts/durations-reporter.mjs), after the failures.
const durationsFile = path.join(reportDir, 'durations.txt');
const durations = process.env.TEST_SLOWEST
  ? [
      `--test-reporter=${new URL('./durations-reporter.mjs', import.meta.url).href}`,
      `--test-reporter-destination=${durationsFile}`,
    ]
  : [];
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
    ...durations,
    ...files,
  ],
  { stdio: 'inherit' },
);
const failures = existsSync(failuresFile) ? readFileSync(failuresFile, 'utf8') : '';
if (failures) process.stdout.write(failures);
if (existsSync(durationsFile)) process.stdout.write(readFileSync(durationsFile, 'utf8'));
rmSync(reportDir, { recursive: true, force: true });
if (dashboardDir) rmSync(dashboardDir, { recursive: true, force: true });
process.exit(result.status ?? 1);
