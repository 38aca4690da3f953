// The shape of src/ that docs/development.md promises a newcomer: no import circle anywhere (type-only imports count:
// a shared type belongs in a leaf module), and no folder so full that finding a file in it needs scrolling.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const SRC = path.resolve(import.meta.dirname, '..', '..', 'src');

/** Most files in one folder of src/. */
const MAX_FILES_PER_FOLDER = 15;
/** The migrations are one numbered sequence, read by number rather than browsed. */
const SEQUENCE_FOLDERS = new Set(['db/schema/migrations']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return entry.endsWith('.ts') ? [full] : [];
  });
}

/** The modules of src/ each module imports (import, import type, export ... from, import()). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((ref) => ref.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.resolve(path.dirname(file), name).replace(/\.js$/, '.ts'));
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one that imports itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(path.relative(SRC, w));
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('no module of src/ imports itself back through others (type-only imports count)', () => {
  const found = circles(importGraph());
  assert.deepEqual(found, [], `import circles:\n${found.map((c) => `  ${c.join(' <-> ')}`).join('\n')}`);
});

test('the circle check finds a circle, type-only or not', () => {
  const a = path.join(SRC, 'a.ts');
  const b = path.join(SRC, 'b.ts');
  const c = path.join(SRC, 'c.ts');
  assert.deepEqual(
    circles(
      new Map([
        [a, [b]],
        [b, [a]],
        [c, [a]],
      ]),
    ),
    [['a.ts', 'b.ts']],
  );
  // What preProcessFile reports for `import type` is what the graph is built from.
  const { importedFiles } = ts.preProcessFile("import type { X } from './x.js';\nexport type Y = X;\n", true, true);
  assert.deepEqual(
    importedFiles.map((f) => f.fileName),
    ['./x.js'],
  );
});

test(`no folder of src/ holds more than ${MAX_FILES_PER_FOLDER} files`, () => {
  const crowded: string[] = [];
  const walk = (dir: string): void => {
    const entries = readdirSync(dir);
    const files = entries.filter((e) => statSync(path.join(dir, e)).isFile());
    const relative = path.relative(SRC, dir).split(path.sep).join('/');
    if (files.length > MAX_FILES_PER_FOLDER && !SEQUENCE_FOLDERS.has(relative))
      crowded.push(`src/${relative}: ${files.length} files`);
    for (const e of entries) if (statSync(path.join(dir, e)).isDirectory()) walk(path.join(dir, e));
  };
  walk(SRC);
  assert.deepEqual(crowded, []);
});
