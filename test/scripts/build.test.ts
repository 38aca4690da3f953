// scripts/build.mjs (npm run build, npm start's prestart) builds only what changed: run on a small copy of the
// repository's layout (a src/ for tsc, a web/ for vite that imports a helper from src/lib, as the dashboard does),
// whether a part was rebuilt is read from its stamp and its outputs' mtimes, never from how long the run took.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

async function makeTree(root: string): Promise<void> {
  await mkdir(path.join(root, 'scripts'));
  await copyFile(path.join(REPO, 'scripts/build.mjs'), path.join(root, 'scripts/build.mjs'));
  await symlink(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
  await writeFile(path.join(root, 'package.json'), '{"type":"module","private":true}\n');
  await writeFile(path.join(root, 'package-lock.json'), '{}\n');
  await writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        outDir: 'dist',
        rootDir: '.',
      },
      include: ['src'],
    }),
  );
  await writeFile(path.join(root, 'tsconfig.build.json'), '{"extends":"./tsconfig.json","include":["src"]}\n');
  await mkdir(path.join(root, 'src/lib'), { recursive: true });
  await writeFile(path.join(root, 'src/main.ts'), "export const main = 'server';\n");
  await writeFile(path.join(root, 'src/lib/helper.ts'), "export const helper = 'one';\n");
  await mkdir(path.join(root, 'web/src'), { recursive: true });
  await writeFile(
    path.join(root, 'web/vite.config.ts'),
    "import { defineConfig } from 'vite';\nexport default defineConfig({ root: import.meta.dirname, build: { outDir: 'dist', emptyOutDir: true } });\n",
  );
  await writeFile(
    path.join(root, 'web/index.html'),
    '<!doctype html><html><body><script type="module" src="/src/main.ts"></script></body></html>\n',
  );
  await writeFile(
    path.join(root, 'web/src/main.ts'),
    "import { helper } from '../../src/lib/helper';\ndocument.body.textContent = helper;\n",
  );
}

function build(root: string): string {
  const run = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stderr;
}

const mtimeOf = async (file: string) => (await stat(file)).mtimeMs;

test('a second build with nothing changed rebuilds nothing; a change in web/ or its src/lib helper rebuilds the dashboard', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-build-'));
  try {
    await makeTree(root);
    const first = build(root);
    assert.match(first, /building the server/);
    assert.match(first, /building the dashboard/);
    const serverOut = path.join(root, 'dist/src/main.js');
    const webOut = path.join(root, 'web/dist/index.html');
    const stamps = async () => ({
      server: await readFile(path.join(root, 'dist/.build-stamp.json'), 'utf8'),
      web: await readFile(path.join(root, 'web/dist/.build-stamp.json'), 'utf8'),
      serverMtime: await mtimeOf(serverOut),
      webMtime: await mtimeOf(webOut),
    });
    const built = await stamps();
    assert.deepEqual(JSON.parse(built.web).outside, ['src/lib/helper.ts'], 'the helper outside web/ is an input');

    const second = build(root);
    assert.match(second, /the server \(dist\/\) is up to date/);
    assert.match(second, /the dashboard \(web\/dist\) is up to date/);
    assert.deepEqual(await stamps(), built, 'no output was written again');

    // A change in web/: the dashboard only.
    await writeFile(
      path.join(root, 'web/src/main.ts'),
      "import { helper } from '../../src/lib/helper';\ndocument.title = helper;\n",
    );
    const third = build(root);
    assert.match(third, /the server \(dist\/\) is up to date/);
    assert.match(third, /building the dashboard/);
    const afterWeb = await stamps();
    assert.equal(afterWeb.server, built.server);
    assert.equal(afterWeb.serverMtime, built.serverMtime);
    assert.notEqual(afterWeb.web, built.web);

    // A change in the helper the dashboard imports: both.
    await writeFile(path.join(root, 'src/lib/helper.ts'), "export const helper = 'two';\n");
    const fourth = build(root);
    assert.match(fourth, /building the server/);
    assert.match(fourth, /building the dashboard/);
    assert.match(await readFile(path.join(root, 'dist/src/lib/helper.js'), 'utf8'), /two/);

    // An output removed: rebuilt even though the stamp is there.
    await rm(webOut);
    assert.match(build(root), /building the dashboard/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
