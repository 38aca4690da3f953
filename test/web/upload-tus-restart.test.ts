// A large dashboard upload (tus) across a restart of the server: the upload is caught in the middle, the server is
// closed and started again on the same data folder, database and port, the page is reloaded and the same file chosen
// again; the upload goes on from the offset the server kept (no new upload, no byte sent twice from the start) and the
// stored file is byte-exact.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { loadConfig } from '../../src/config.js';
import type { Engine } from '../../src/db/index.js';
import { createChute } from '../../src/server.js';
import { describeBrowser, openPage, signIn, useBrowser } from '../support/browser.js';
import { authHeaders, forEachDatabase, startTestServer, TestServer, withSharedState } from '../support/server.js';
import { appendTempFiles } from '../support/stored.js';
import { row, throttleUploads, UPLOAD_ENV, waitForStatus } from '../support/upload-page.js';

const KB = 1024;
const MB = 1024 * KB;

/**
 * The same Chute again on the data folder and database of a closed one, listening on the port it had (the page's
 * origin, under which tus-js-client keeps the upload's URL). startTestServer always listens on a free port, hence
 * this. `beforeListening` runs once the server is ready but before any request can reach it.
 */
async function restartOnPort(
  engine: Engine,
  shared: { dataDir: string; databaseUrl: string | undefined },
  port: number,
  beforeListening: (server: TestServer) => Promise<void>,
): Promise<TestServer> {
  const config = loadConfig({
    DATA_DIR: shared.dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'silent',
    ...(engine === 'postgres' && shared.databaseUrl ? { DATABASE_URL: shared.databaseUrl } : {}),
    ...UPLOAD_ENV,
  });
  const chute = await createChute(config, {
    startJobs: false,
    logger: process.env.TEST_LOG ? { level: process.env.TEST_LOG } : false,
  });
  const url = `http://127.0.0.1:${port}`;
  const server = new TestServer(chute, url, shared.dataDir, async () => undefined);
  try {
    await beforeListening(server);
    // The closed server's port is free again at once (Node listens with SO_REUSEADDR); another process may still
    // have taken it meanwhile, so a few tries.
    for (let attempt = 0; ; attempt++) {
      try {
        await chute.app.listen({ host: '127.0.0.1', port });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (err) {
    await chute.close();
    throw err;
  }
  return server;
}

type Phase = 'before' | 'restart' | 'reloaded';

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describeBrowser('dashboard: a tus upload across a server restart', () => {
  const browser = useBrowser();

  forEachDatabase('restart', (engine) => {
    it('resumes after the restart and a reload from the offset the server kept, byte-exact', async () => {
      await withSharedState(engine, async (shared) => {
        const folder = await mkdtemp(path.join(os.tmpdir(), 'chute-restart-'));
        // A file on disk keeps its last-modified time, which is part of tus-js-client's fingerprint of it.
        const file = randomBytes(5 * MB + 77);
        const name = 'restart-me.bin';
        const onDisk = path.join(folder, name);
        await writeFile(onDisk, file);
        let first: TestServer | undefined = await startTestServer({ engine, ...shared, env: UPLOAD_ENV });
        let second: TestServer | undefined;
        let context: BrowserContext | undefined;
        try {
          const admin = await first.setup();
          const port = Number(new URL(first.url).port);
          const opened = await openPage(browser(), first.url);
          context = opened.context;
          const { page, errors } = opened;
          await signIn(page, admin.username, admin.password);
          await page.goto('/dashboard/upload');
          await page.getByRole('heading', { name: 'Upload' }).waitFor();
          assert.deepEqual(errors, ['http 401: GET /api/user'], "only the sign-in page's expected 401");
          errors.length = 0;
          // Leaving with an upload running asks first (beforeunload): the person confirms.
          page.on('dialog', (dialog) => void dialog.accept());

          // Every tus request the page sends, in order: before the restart, during it, or from the reloaded page.
          let phase = 'before' as Phase;
          const sent: Array<{ phase: Phase; method: string; offset: number | null }> = [];
          page.on('request', (request) => {
            if (!new URL(request.url()).pathname.startsWith('/api/upload/tus')) return;
            const offset = request.headers()['upload-offset'];
            sent.push({ phase, method: request.method(), offset: offset === undefined ? null : Number(offset) });
          });

          // 512 KiB/s: the 1 MiB chunks take two seconds each, so the restart lands in the middle of the upload.
          const unthrottle = await throttleUploads(context, page, 512 * KB);
          await page.locator('input[type=file]').setInputFiles(onDisk);
          await row(page, name)
            .getByText(/chunk 3 of 6/)
            .waitFor();
          const upload = await first.ctx.db
            .selectFrom('upload_sessions')
            .select(['id', 'received'])
            .where('protocol', '=', 'tus')
            .executeTakeFirstOrThrow();
          assert.ok(upload.received >= 2 * MB, `offset ${upload.received} before the restart`);
          assert.match(
            String(await page.evaluate('JSON.stringify(Object.keys(localStorage))')),
            /tus::tus-br-restart-me\.bin/,
            'tus-js-client remembers the upload',
          );

          // The restart: the server closes (the PATCH under way finishes; one sent on a kept-alive connection while it
          // closes is answered 503; new connections are refused) and starts again on the same data folder, database
          // and port. The page's tus-js-client tries again meanwhile, as it does after a lost connection.
          phase = 'restart';
          const restartErrorsFrom = errors.length;
          await first.close();
          first = undefined;
          // The offset the server kept is read before the new server listens. From then until the reload, the old
          // page's retries are refused as they were while the server was down, so that the reloaded page is the one
          // that goes on (from exactly that offset).
          let offsetAtRestart = -1;
          const untilReload = (url: URL) => url.pathname.startsWith('/api/upload/tus');
          second = await restartOnPort(engine, shared, port, async (server) => {
            const kept = await server.ctx.db
              .selectFrom('upload_sessions')
              .select(['received', 'total_size'])
              .where('id', '=', upload.id)
              .executeTakeFirstOrThrow();
            offsetAtRestart = kept.received;
            assert.equal(kept.total_size, file.length);
            await page.route(untilReload, (route) => route.abort('connectionrefused'));
          });
          assert.ok(offsetAtRestart >= upload.received, `offset ${offsetAtRestart} kept over the restart`);
          assert.ok(offsetAtRestart < file.length, 'the upload was not finished before the restart');

          // The page is reloaded, and the same file chosen again: tus-js-client finds the upload's URL in localStorage.
          await page.reload();
          await page.getByRole('heading', { name: 'Upload' }).waitFor();
          phase = 'reloaded';
          await page.unroute(untilReload);
          await unthrottle();
          // What a client asks before going on: the restarted server's offset, over tus.
          const head = await second.fetch(`/api/upload/tus/${upload.id}`, {
            method: 'HEAD',
            headers: { 'tus-resumable': '1.0.0', ...authHeaders(admin.token) },
          });
          assert.equal(head.status, 200);
          assert.equal(Number(head.headers.get('upload-offset')), offsetAtRestart);
          assert.equal(Number(head.headers.get('upload-length')), file.length);
          const restartErrors = errors.splice(restartErrorsFrom);
          for (const error of restartErrors) {
            assert.match(
              error,
              new RegExp(`^http 503: (PATCH|HEAD) /api/upload/tus/${upload.id}$`),
              'a closing server',
            );
          }
          await page.locator('input[type=file]').setInputFiles(onDisk);
          await waitForStatus(page, name, 'Done');

          assert.equal(sent.filter((r) => r.method === 'POST').length, 1, 'one upload was created, before the restart');
          // The reloaded page sends only the rest: its PATCHes follow each other from the offset the server kept.
          const patches = sent.filter((r) => r.phase === 'reloaded' && r.method === 'PATCH');
          assert.deepEqual(
            patches.map((r) => r.offset),
            Array.from({ length: Math.ceil((file.length - offsetAtRestart) / MB) }, (_, i) => offsetAtRestart + i * MB),
            `resumed at the offset the server kept, 1 MiB a PATCH: ${JSON.stringify(sent)}`,
          );
          assert.ok(
            file.length - offsetAtRestart <= file.length - 2 * MB,
            'fewer bytes than the file after the restart',
          );

          // The file as stored, byte for byte.
          const link = await row(page, name).getByTestId('upload-link').textContent();
          assert.ok(link, 'a link is shown');
          const served = await second.fetch(`/raw/${link.split('/').pop()!}`);
          assert.equal(served.status, 200);
          const stored = Buffer.from(await served.arrayBuffer());
          assert.equal(stored.length, file.length);
          assert.equal(sha256(stored), sha256(file), 'byte-exact after the restart');

          // Nothing is left behind: the upload's URL is forgotten, its temp bytes and its record are gone.
          assert.equal(
            String(await page.evaluate('JSON.stringify(Object.keys(localStorage))')).includes('tus::'),
            false,
          );
          assert.deepEqual(await appendTempFiles(shared.dataDir), []);
          assert.deepEqual(
            await second.ctx.db.selectFrom('upload_sessions').select('id').where('protocol', '=', 'tus').execute(),
            [],
          );
          assert.deepEqual(errors, []);
        } finally {
          await context?.close();
          await first?.close();
          await second?.close();
          await rm(folder, { recursive: true, force: true });
        }
      });
    });
  });
});
