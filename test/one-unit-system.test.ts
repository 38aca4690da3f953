// One unit system (issue 43 item 8): every printed size is IEC units with binary values, written by one formatter
// (src/lib/text/sizes.ts) that the server's pages, its messages, the CLI and the dashboard share.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { formatByteSize } from '../src/lib/text/sizes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FORMATTER = 'src/lib/text/sizes.ts';

/** Every source file under src/, web/src and bin/, as a path relative to the checkout. */
function sourceFiles(): string[] {
  const files: string[] = [];
  for (const top of ['src', 'web/src', 'bin']) {
    for (const entry of readdirSync(path.join(ROOT, top), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && /\.(ts|tsx|mjs|js)$/.test(entry.name))
        files.push(path.relative(ROOT, path.join(entry.parentPath, entry.name)).replaceAll(path.sep, '/'));
    }
  }
  return files;
}

/** Text that is another program's syntax, not ours to print: PostgreSQL's memory units are binary but spelt "MB". */
const FOREIGN_SYNTAX = [/maintenance_work_mem = '\d+MB'/g];

describe('formatByteSize', () => {
  it('prints IEC units with binary values at the boundaries', () => {
    const cases: Array<[number, string]> = [
      [0, '0 B'],
      [1023, '1023 B'],
      [1024, '1.00 KiB'],
      [1536, '1.50 KiB'],
      [1024 ** 2 - 1, '1.00 MiB'],
      [1024 ** 2, '1.00 MiB'],
      [5 * 1024 ** 3, '5.00 GiB'],
    ];
    for (const [bytes, text] of cases) assert.equal(formatByteSize(bytes), text, `${bytes} bytes`);
  });

  it('says "-" for what is not a byte count', () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) assert.equal(formatByteSize(bad), '-');
  });
});

describe('the sources', () => {
  const files = sourceFiles();

  it('are found', () => {
    assert.ok(files.includes(FORMATTER) && files.includes('web/src/lib/format.ts') && files.includes('bin/chute.mjs'));
  });

  it('label no size in decimal units (KB, MB, GB, TB)', () => {
    const found: string[] = [];
    for (const file of files) {
      let text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const foreign of FOREIGN_SYNTAX) text = text.replace(foreign, '');
      for (const match of text.matchAll(/\b\d+(\.\d+)?\s?(KB|MB|GB|TB)\b/g)) found.push(`${file}: ${match[0]}`);
    }
    assert.deepEqual(found, []);
  });

  it('hold no size formatter but the one in src/lib/text/sizes.ts', () => {
    const found: string[] = [];
    for (const file of files) {
      if (file === FORMATTER) continue;
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      // A formatter names its units as strings, or divides by 1024 and rounds.
      if (/['"`](KiB|MiB|GiB|TiB|KB|MB|GB|TB)['"`]/.test(text)) found.push(`${file}: a unit name as a string`);
      if (/\/=?\s*1024\b/.test(text) && /toFixed\(/.test(text)) found.push(`${file}: divides by 1024 and rounds`);
    }
    assert.deepEqual(found, []);
  });

  it('of the dashboard take their sizes from the shared formatter', () => {
    const format = readFileSync(path.join(ROOT, 'web/src/lib/format.ts'), 'utf8');
    assert.match(
      format,
      /import \{ formatByteSize as formatBytes \} from '\.\.\/\.\.\/\.\.\/src\/lib\/text\/sizes\.js'/,
    );
  });
});
