// Crash test of tus uploads: kill -9 of the real server process while a PATCH streams, after earlier PATCHes were
// acknowledged; then a restart on the same DATA_DIR and database. The offset is the acknowledged one (the cut-off
// PATCH was never recorded), tus-js-client resumes from it, and the file ends byte-exact with no temp data left.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'node:test';
import { httpClientOf, killChuteProcess, startChuteProcess, type ChuteProcess } from '../support/chute-process.js';
import { requestHead } from '../support/raw-http.js';
import { authHeaders, forEachDatabase, startTestServer, withSharedState } from '../support/server.js';
import { appendTempFiles } from '../support/stored.js';
import { tusUpload } from '../support/tus.js';

const MiB = 1024 * 1024;
const TUS = { 'tus-resumable': '1.0.0' };

forEachDatabase('kill -9 during a tus upload', (engine) => {
  it('the acknowledged offset survives; the upload resumes after the restart and ends byte-exact', async () => {
    await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
      let chute: ChuteProcess | undefined;
      const file = randomBytes(5 * MiB + 321);
      let where: string;
      let token: string;
      try {
        chute = await startChuteProcess({ dataDir, databaseUrl });
        const client = httpClientOf(chute.url);
        token = (await client.setup()).token;
        const created = await client.fetch('/api/upload/tus', {
          method: 'POST',
          headers: { ...TUS, ...authHeaders(token), 'upload-length': String(file.length) },
        });
        assert.equal(created.status, 201);
        where = new URL(created.headers.get('location')!).pathname;
        const first = await client.fetch(where, {
          method: 'PATCH',
          headers: {
            ...TUS,
            ...authHeaders(token),
            'content-type': 'application/offset+octet-stream',
            'upload-offset': '0',
          },
          body: file.subarray(0, 2 * MiB),
        });
        assert.equal(first.status, 204);
        // The next PATCH announces the rest and sends one more MiB, then the process dies.
        const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(chute.url).port) });
        socket.on('error', () => undefined);
        socket.write(
          requestHead('PATCH', where, {
            ...TUS,
            authorization: token,
            'content-type': 'application/offset+octet-stream',
            'upload-offset': 2 * MiB,
            'content-length': file.length - 2 * MiB,
          }),
        );
        socket.write(file.subarray(2 * MiB, 3 * MiB));
        await sleep(300);
        chute.child.kill('SIGKILL');
        await chute.exited;
        socket.destroy();
      } finally {
        await killChuteProcess(chute);
      }

      const again = await startTestServer({ engine, dataDir, databaseUrl });
      try {
        const head = await again.fetch(where, { method: 'HEAD', headers: { ...TUS, ...authHeaders(token) } });
        assert.equal(head.status, 200);
        assert.equal(head.headers.get('upload-offset'), String(2 * MiB), 'the acknowledged offset, not more');
        const run = await tusUpload(again, token, file, { uploadUrl: `${again.url}${where}` });
        const served = await fetch(`${again.url}${new URL(run.fileUrl!).pathname.replace('/u/', '/raw/')}`);
        assert.ok(Buffer.from(await served.arrayBuffer()).equals(file), 'byte-exact after the crash');
        assert.deepEqual(await appendTempFiles(dataDir), []);
      } finally {
        await again.close();
      }
    });
  });
});
