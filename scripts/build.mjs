// npm run build (and so npm start's prestart): builds the server (tsc into dist/) and the dashboard (vite into
// web/dist), each only when its inputs changed since its last build. Each output keeps a stamp, a hash of what it was
// built from: dist/.build-stamp.json (src/, the tsconfigs, package-lock.json) and web/dist/.build-stamp.json (web/
// without web/dist, package-lock.json, and the files outside web/ that the bundle took in, e.g. src/lib/file-list.ts).
// A stamp that matches and an output that is there: nothing to do. The server's build is incremental besides
// (dist/.tsbuildinfo), so a change rebuilds only what it touches.
//
// Usage: node scripts/build.mjs [server|web] [--force]   (both by default; --force rebuilds whatever the stamps say)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = '.build-stamp.json';

/** Every file under `dir` (relative to ROOT, sorted), leaving out the folders in `skip` (relative to ROOT). */
export function filesUnder(dir, skip = []) {
  const out = [];
  const walk = (rel) => {
    for (const entry of readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (!skip.includes(child) && entry.name !== 'node_modules') walk(child);
      } else if (entry.isFile()) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

/** One hash over the names and contents of `files` (relative to ROOT); a missing file counts as its absence. */
export function hashFiles(files) {
  const hash = createHash('sha256');
  for (const file of [...new Set(files)].sort()) {
    hash.update(`${file}\0`);
    const full = path.join(ROOT, file);
    hash.update(existsSync(full) ? readFileSync(full) : 'missing');
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readStamp(dir) {
  try {
    return JSON.parse(readFileSync(path.join(ROOT, dir, STAMP), 'utf8'));
  } catch {
    return null;
  }
}

function writeStamp(dir, stamp) {
  mkdirSync(path.join(ROOT, dir), { recursive: true });
  writeFileSync(path.join(ROOT, dir, STAMP), `${JSON.stringify(stamp, null, 2)}\n`);
}

const say = (line) => process.stderr.write(`build: ${line}\n`);

/** What the server's build reads. */
export function serverInputs() {
  return [...filesUnder('src'), 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
}

/** What the dashboard's build reads, given the files outside web/ that its last bundle took in. */
export function webInputs(extra = []) {
  return [...filesUnder('web', ['web/dist']), 'package-lock.json', ...extra];
}

function buildServer(force) {
  const hash = hashFiles(serverInputs());
  const stamp = readStamp('dist');
  if (!force && stamp?.hash === hash && existsSync(path.join(ROOT, 'dist/src/main.js'))) {
    say('the server (dist/) is up to date');
    return;
  }
  say('building the server (tsc, incremental) ...');
  const started = Date.now();
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (run.status !== 0) process.exit(run.status ?? 1);
  writeStamp('dist', { hash, builtAt: new Date().toISOString() });
  say(`built the server in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function buildWeb(force) {
  const stamp = readStamp('web/dist');
  const before = hashFiles(webInputs(stamp?.outside ?? []));
  if (!force && stamp?.hash === before && existsSync(path.join(ROOT, 'web/dist/index.html'))) {
    say('the dashboard (web/dist) is up to date');
    return;
  }
  say('building the dashboard (vite) ...');
  const started = Date.now();
  const { build } = await import('vite');
  // The modules the bundle took in from outside web/ and node_modules (the server's pure helpers it imports).
  const outside = new Set();
  await build({
    configFile: path.join(ROOT, 'web/vite.config.ts'),
    logLevel: 'warn',
    plugins: [
      {
        name: 'chute-build-inputs',
        buildEnd() {
          for (const id of this.getModuleIds()) {
            const file = path.relative(ROOT, id.split('?')[0]).split(path.sep).join('/');
            if (!file.startsWith('..') && !file.startsWith('web/') && !file.includes('node_modules/')) {
              if (existsSync(path.join(ROOT, file))) outside.add(file);
            }
          }
        },
      },
    ],
  });
  const files = [...outside].sort();
  writeStamp('web/dist', { hash: hashFiles(webInputs(files)), outside: files, builtAt: new Date().toISOString() });
  say(`built the dashboard in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const parts = args.filter((a) => a !== '--force');
  const unknown = parts.filter((p) => p !== 'server' && p !== 'web');
  if (unknown.length > 0) {
    console.error(`usage: node scripts/build.mjs [server|web] [--force] (unknown: ${unknown.join(' ')})`);
    process.exit(2);
  }
  if (parts.length === 0 || parts.includes('server')) buildServer(force);
  if (parts.length === 0 || parts.includes('web')) await buildWeb(force);
}
