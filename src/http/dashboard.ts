// Serves the built dashboard (web/, built by `npm run build` into web/dist) from the Chute process itself: hashed
// assets under /assets/ with a year-long cache, and index.html for every dashboard page so the browser-side router
// takes over. When the dashboard has not been built, its pages say how to build it instead of failing obscurely.
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../lib/errors.js';
import type { App } from './types.js';

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.map': 'application/json',
};

/** web/dist of this installation: the folder holding package.json, found by walking up from this module. */
export function defaultDashboardDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (dir !== path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'web', 'dist');
    dir = path.dirname(dir);
  }
  return path.resolve('web', 'dist');
}

interface DashboardFiles {
  /** index.html, or null when the dashboard is not built. */
  index: string | null;
  /** Every file under assets/, by name, read into memory once (a few hundred KiB, served on every first visit). */
  assets: Map<string, Asset>;
}

interface Asset {
  body: Buffer;
  /** Whether it is text that shrinks when compressed (JavaScript, CSS, SVG). */
  compressible: boolean;
  /** Compressed on first request, in the background (not at start-up: every test server would pay for it). */
  br?: Promise<Buffer>;
  gzip?: Promise<Buffer>;
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

function assetOf(name: string, body: Buffer): Asset {
  return { body, compressible: /\.(js|css|svg|map)$/.test(name) && body.length >= 1024 };
}

/** The asset's body in the best encoding the client accepts, compressing (once) on first use. */
async function encodedAsset(asset: Asset, accepted: string): Promise<[string | null, Buffer]> {
  if (!asset.compressible) return [null, asset.body];
  if (/\bbr\b/.test(accepted)) {
    asset.br ??= brotli(asset.body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: asset.body.length },
    });
    return ['br', await asset.br];
  }
  if (/\bgzip\b/.test(accepted)) {
    asset.gzip ??= gzipAsync(asset.body, { level: 9 });
    return ['gzip', await asset.gzip];
  }
  return [null, asset.body];
}

async function loadDashboard(dir: string): Promise<DashboardFiles> {
  const assets = new Map<string, Asset>();
  let index: string;
  try {
    index = await readFile(path.join(dir, 'index.html'), 'utf8');
  } catch {
    return { index: null, assets };
  }
  const assetDir = path.join(dir, 'assets');
  const names = await readdir(assetDir).catch(() => [] as string[]);
  for (const name of names) assets.set(name, assetOf(name, await readFile(path.join(assetDir, name))));
  return { index, assets };
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chute</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5">
<h1>The dashboard is not built</h1>
<p>The API works, but the web dashboard's files were not found. Build them with <code>npm run build</code>
(or <code>npm start</code>, which builds first), or set <code>DASHBOARD_DIR</code> to a built copy.</p></body></html>`;

/** The dashboard runs only its own scripts; Mantine sets inline styles; previews and avatars may be blob: or data:. */
const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export async function registerDashboard(app: App, ctx: AppContext): Promise<void> {
  const files = await loadDashboard(ctx.config.DASHBOARD_DIR ?? defaultDashboardDir());

  const sendIndex = (_request: unknown, reply: FastifyReply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY')
      .header('content-security-policy', DASHBOARD_CSP)
      .type('text/html; charset=utf-8')
      .send(files.index ?? NOT_BUILT);

  const hide = { schema: { hide: true } };
  app.get('/', hide, (_request, reply) => reply.redirect('/dashboard'));
  for (const page of ['/dashboard', '/auth']) {
    app.get(page, hide, sendIndex);
    app.get(`${page}/*`, hide, sendIndex);
  }
  app.get('/assets/:name', hide, async (request, reply) => {
    const { name } = request.params as { name: string };
    const asset = files.assets.get(name);
    if (!asset) throw new ApiError(9002, `no dashboard asset ${name}`);
    const [encoding, body] = await encodedAsset(asset, String(request.headers['accept-encoding'] ?? ''));
    if (encoding) reply.header('content-encoding', encoding);
    return reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('vary', 'accept-encoding')
      .header('x-content-type-options', 'nosniff')
      .type(ASSET_TYPES[path.extname(name)] ?? 'application/octet-stream')
      .send(body);
  });
}
