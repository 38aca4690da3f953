// Every TRUST_PROXY value that a doc, a compose file or a comment tells people to set is one the server starts with,
// and every value they call refused is refused: a reader who copies a line gets a server that starts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The tests pass refused values on purpose; the lock file and generated types name no settings.
const SKIPPED = /^(test\/|package-lock\.json$|web\/src\/api\/openapi\.d\.ts$)/;
const TEXT_FILES = /(\.(md|ya?ml|ts|tsx|mjs|js|sh|env|example)|Dockerfile)$/;
// `TRUST_PROXY=<value>` in prose and shell lines (a trailing comma or full stop is the sentence's), and a compose
// file's `${TRUST_PROXY:-<default>}`.
const ASSIGNMENT = /TRUST_PROXY=([^\s`'"()<>]+?)[,.;:]?(?=[\s`'"()<>]|$)/g;
const COMPOSE_DEFAULT = /\$\{TRUST_PROXY:-([^}]*)\}/g;
/** How far after a value a sentence that calls it refused may say so. */
const REFUSAL_REACH = 80;

interface NamedValue {
  where: string;
  value: string;
  calledRefused: boolean;
}

function namedValues(): NamedValue[] {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && TEXT_FILES.test(file) && !SKIPPED.test(file));
  const found: NamedValue[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(path.join(ROOT, file), 'utf8');
    } catch {
      continue; // deleted in the working tree
    }
    for (const pattern of [ASSIGNMENT, COMPOSE_DEFAULT]) {
      for (const match of text.matchAll(pattern)) {
        const line = text.slice(0, match.index).split('\n').length;
        const after = text.slice(match.index + match[0].length, match.index + match[0].length + REFUSAL_REACH);
        found.push({ where: `${file}:${line}`, value: match[1]!, calledRefused: /\brefused\b/.test(after) });
      }
    }
  }
  return found;
}

function startsWith(value: string): boolean {
  try {
    loadConfig({ TRUST_PROXY: value });
    return true;
  } catch (err) {
    if (err instanceof ConfigError) return false;
    throw err;
  }
}

test('every TRUST_PROXY value the docs and comments give is one the server starts with', () => {
  const values = namedValues();
  // The pages that explain it: the test must see them, or it would pass on nothing.
  for (const file of ['compose.yaml', 'docs/oauth.md', 'docs/operations.md', 'docs/install.md']) {
    assert.ok(
      values.some((v) => v.where.startsWith(`${file}:`)),
      `no TRUST_PROXY value found in ${file}`,
    );
  }
  const wrong = values
    .filter((v) => startsWith(v.value) === v.calledRefused)
    .map((v) => `${v.where}: TRUST_PROXY=${v.value} is ${v.calledRefused ? 'called refused but starts' : 'refused'}`);
  assert.deepEqual(wrong, []);
});
