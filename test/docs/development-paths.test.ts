// Every repository path that docs/development.md names exists, so that the map of the code cannot drift from the code:
// a file renamed or moved without the doc fails here, with the doc's line, until the doc follows.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = 'docs/development.md';
// The doc writes paths from the repository root, from src/ (`routes/uploads/upload.ts`), from docs/ (its links:
// `configuration.md`, `../bench/README.md`) and from web/src/; a path passes if it exists from any of them.
const BASES = ['', 'src', 'docs', 'web/src'];
const EXTENSIONS = ['.ts', '.tsx', '.mjs', '.js', '.md', '.json', '.sh', '.yaml'];

interface NamedPath {
  line: number;
  name: string;
}

interface Missing extends NamedPath {
  why: string;
}

// Build and test outputs (`dist/`, `web/dist`, `test-artifacts/`) are named as what a command makes, not as files of the
// repository: the folders .gitignore lists are left out.
function outputFolders(): string[] {
  return readFileSync(path.join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.endsWith('/') && !/[*?[!#]/.test(line))
    .map((line) => line.replace(/^\/|\/$/g, ''));
}

function isOutput(name: string, outputs: string[]): boolean {
  const segments = name.replace(/\/$/, '').split('/');
  return outputs.some((folder) =>
    folder.includes('/') ? `${name}/`.startsWith(`${folder}/`) : segments.includes(folder),
  );
}

// A command (`npm test -- x`), a URL or a route (`/raw`), a machine's path (`/usr/bin/chromium`), a glob (`*-api.ts`)
// or a placeholder (`routes/<resource>.ts`) names no file; a word without a slash or a known extension is not a path.
function looksLikePath(text: string): boolean {
  if (/[\s*<>]/.test(text) || text.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(text)) return false;
  return text.includes('/') || EXTENSIONS.some((ext) => text.endsWith(ext));
}

/** The paths a markdown text names (code spans, link targets; not fenced blocks), by paragraph or list item. */
function namedPaths(markdown: string): NamedPath[][] {
  const blocks: NamedPath[][] = [];
  let block: NamedPath[] = [];
  let fenced = false;
  const startBlock = () => {
    if (block.length > 0) blocks.push(block);
    block = [];
  };
  markdown.split('\n').forEach((text, i) => {
    if (/^\s*```/.test(text)) {
      fenced = !fenced;
      startBlock();
      return;
    }
    if (fenced) return;
    // A bare name (`multipart.ts`) is read in the folder its paragraph or list item named before it (`src/http/`),
    // so a block ends where a paragraph, a list item, a table row or a heading begins.
    if (/^\s*$/.test(text) || /^\s*([-*+]|\d+\.)\s/.test(text) || /^\s*[|#]/.test(text)) startBlock();
    const found: { at: number; name: string }[] = [];
    for (const m of text.matchAll(/`([^`]+)`/g)) found.push({ at: m.index, name: m[1]! });
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) found.push({ at: m.index, name: m[1]!.replace(/#.*$/, '') });
    for (const { name } of found.sort((a, b) => a.at - b.at)) {
      if (looksLikePath(name)) block.push({ line: i + 1, name });
    }
  });
  startBlock();
  return blocks;
}

function kindOf(file: string): 'file' | 'folder' | undefined {
  try {
    return statSync(file).isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}

/** The named paths that exist under none of the bases (nor, for a bare name, in a folder named before it). */
function missingPaths(markdown: string, root: string, outputs: string[] = []): Missing[] {
  const missing: Missing[] = [];
  for (const block of namedPaths(markdown)) {
    const folders: string[] = [];
    for (const { line, name } of block) {
      if (isOutput(name, outputs)) continue;
      const wantsFolder = name.endsWith('/');
      const bases = name.includes('/') ? BASES : [...BASES, ...folders];
      const found = bases
        .map((base) => path.resolve(root, base, name))
        .filter((file) => file === path.resolve(root) || file.startsWith(path.resolve(root) + path.sep))
        .map((file) => ({ file, kind: kindOf(file) }))
        .filter((candidate) => candidate.kind !== undefined);
      const match = found.find((candidate) => !wantsFolder || candidate.kind === 'folder');
      if (match) {
        if (match.kind === 'folder') folders.push(path.relative(root, match.file));
      } else if (found.length > 0) {
        missing.push({ line, name, why: 'is a file, not a folder' });
      } else {
        const searched = bases.map((base) => `${base || '.'}/`).join(', ');
        missing.push({ line, name, why: `exists under none of ${searched}` });
      }
    }
  }
  return missing;
}

test('the rule skips commands, routes, globs and placeholders, and reads a bare name in the folder named before it', () => {
  // A repository of its own, with names no real file has, so that neither the real tree nor a script that rewrites
  // the tree's paths when files move changes what this test checks.
  const root = mkdtempSync(path.join(os.tmpdir(), 'chute-doc-paths-'));
  try {
    for (const file of ['src/alpha/beta.ts', 'src/gamma/delta.ts', 'src/omega.ts', 'docs/epsilon.md', 'zeta.js']) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), '');
    }
    mkdirSync(path.join(root, 'eta'));
    writeFileSync(path.join(root, 'eta', 'README.md'), '');
    const markdown = [
      'Run `npm test -- test/x.test.ts`; `/raw` and `/usr/bin/chromium` are not ours; `*-api.ts`, `gamma/<r>.ts`.',
      'See [the guide](https://example.com/a.md) and [Tests](#tests).',
      '',
      '- `src/alpha/` holds `beta.ts` and `nowhere.ts`; `gamma/delta.ts` is from src/.',
      '- `zeta.js`, [epsilon.md](epsilon.md#top), [eta](../eta/README.md), `src/omega.ts/`.',
      '- `beta.ts` again, in an item that names no folder; `dist/` and `web/dist` are outputs.',
    ].join('\n');
    assert.deepEqual(
      namedPaths(markdown).map((block) => block.map((p) => `${p.line} ${p.name}`)),
      [
        ['4 src/alpha/', '4 beta.ts', '4 nowhere.ts', '4 gamma/delta.ts'],
        ['5 zeta.js', '5 epsilon.md', '5 ../eta/README.md', '5 src/omega.ts/'],
        ['6 beta.ts', '6 dist/', '6 web/dist'],
      ],
    );
    assert.deepEqual(
      missingPaths(markdown, root, ['dist', 'web/dist']).map((m) => `${m.line} ${m.name} ${m.why}`),
      [
        '4 nowhere.ts exists under none of ./, src/, docs/, web/src/, src/alpha/',
        '5 src/omega.ts/ is a file, not a folder',
        '6 beta.ts exists under none of ./, src/, docs/, web/src/',
      ],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test(`every repository path named in ${DOC} exists`, () => {
  const missing = missingPaths(readFileSync(path.join(ROOT, DOC), 'utf8'), ROOT, outputFolders());
  assert.deepEqual(
    missing.map((m) => `${DOC}:${m.line} \`${m.name}\` ${m.why}`),
    [],
    `${DOC} names paths that do not exist (rename them in the doc, or restore the file):\n` +
      missing.map((m) => `  ${DOC}:${m.line} \`${m.name}\` ${m.why}`).join('\n'),
  );
});
