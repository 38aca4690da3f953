#!/usr/bin/env node
// Runs the test suite with node:test through tsx: every test/**/*.test.ts (Node 20's --test does not expand globs),
// or the files given as arguments. Database tests also run on PostgreSQL when TEST_DATABASE_URL is set.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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
  console.log('# NOTICE: TEST_DATABASE_URL is not set: database tests run on SQLite only; the PostgreSQL run is SKIPPED.');
  console.log('#         Set TEST_DATABASE_URL=postgres://user@host:5432/db to run them on PostgreSQL too.');
}
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
