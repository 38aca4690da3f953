// Whether this process (a test server runs in it) still holds a file open, for tests of code that must close it.
import assert from 'node:assert/strict';
import { readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** How many descriptors this process holds open on `file`. */
export async function openDescriptorsOf(file: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    if ((await readlink(path.join('/proc/self/fd', fd)).catch(() => '')) === file) count++;
  }
  return count;
}

/** Polls `condition` for up to 2 s (closing happens after the response or stream has ended); fails naming `what`. */
export async function waitFor(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await sleep(10);
  }
  assert.fail(`timed out waiting: ${what}`);
}
