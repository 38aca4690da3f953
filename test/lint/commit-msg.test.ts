// scripts/commit-msg, the commit-msg hook of this repository: run as git runs it, on a message file, it lets good
// subjects through and stops an overlong subject or a body glued to it with a message naming the rule.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const HOOK = fileURLToPath(new URL('../../scripts/commit-msg', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'chute-commit-msg-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function check(message: string): { status: number | null; stderr: string } {
  const file = path.join(dir, `message-${++files}`);
  writeFileSync(file, message);
  // Started as git starts a hook: the file itself, through its shebang, with the message file as its argument.
  const result = spawnSync(HOOK, [file], { encoding: 'utf8' });
  return { status: result.status, stderr: result.stderr };
}

test('a subject, a blank line and a body pass', () => {
  const result = check('Uploads: keep small files in the database\n\nWhy: one commit instead of three flushes.\n');
  assert.deepEqual(result, { status: 0, stderr: '' });
  assert.equal(check(`${'x'.repeat(72)}\n`).status, 0, 'exactly 72 characters');
  assert.equal(check(`${'é'.repeat(72)}\n`).status, 0, 'characters, not bytes');
});

test('a subject of 73 characters fails, naming the rule', () => {
  const result = check(`${'x'.repeat(73)}\n\nBody.\n`);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /the subject line is 73 characters; keep it to 72 or fewer/);
});

test('a body that starts on the second line fails', () => {
  const result = check('Fix the thing\nbecause it was broken.\n');
  assert.equal(result.status, 1);
  assert.match(result.stderr, /the second line must be blank/);
});

test("git's comment lines are ignored, and so is the diff below the scissors of git commit -v", () => {
  const comments = `# Please enter the commit message for your changes.\n# ${'x'.repeat(100)}\n`;
  assert.equal(check(`Fix the thing\n${comments}\nBecause it was broken.\n`).status, 0);
  assert.equal(check(`${comments}Fix the thing\n`).status, 0);
  const scissors = '# ------------------------ >8 ------------------------\n';
  assert.equal(check(`Fix the thing\n\n${scissors}diff --git a/x b/x\n${'+'.repeat(200)}\n`).status, 0);
});

test('an empty message fails', () => {
  const result = check('\n# only a comment\n\n');
  assert.equal(result.status, 1);
  assert.match(result.stderr, /the message is empty/);
});

test("merge commits and fixup!/squash! subjects keep git's own form", () => {
  const long = `'feature/${'x'.repeat(80)}'`;
  assert.equal(check(`Merge branch ${long} into main\n# Conflicts:\n#\tsrc/app.ts\n`).status, 0);
  assert.equal(check(`Merge branch ${long}\nA line straight after it.\n`).status, 0);
  assert.equal(check(`fixup! ${'x'.repeat(80)}\n`).status, 0);
  assert.equal(check(`squash! ${'x'.repeat(80)}\n\nMore.\n`).status, 0);
});
