// POST /api/upload/partial on S3 (chunks become multipart-upload parts): byte-exact round trips across part
// boundaries, random chunkings, and nothing left behind (no spool files, no unfinished multipart uploads) when an
// upload fails or is abandoned. Runs against the real S3-compatible gateway of test/support/s3.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { ManualClock } from '../../../src/lib/clock.js';
import { describeS3, s3Client } from '../../support/s3.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { appendTempFiles, uploadSessionCount } from '../../support/stored.js';
import { sendChunk, uploadAndVerify } from '../../support/chunked-uploads.js';

const MiB = 1024 * 1024;

forEachDatabase('chunked uploads', (engine) => {
  describeS3(`chunked uploads [${engine}]`, (s3Env) => {
    const clock = new ManualClock();
    const server = useTestServer(() => ({
      engine,
      clock,
      env: { ...s3Env(), FILES_MAX_FILE_SIZE: '64mb', S3_PART_SIZE: '5mb' },
    }));
    let admin: TestUser;
    before(async () => {
      admin = await server().setup();
    });

    /** Multipart uploads started in the bucket and neither completed nor aborted. */
    async function unfinishedUploads(): Promise<number> {
      const env = s3Env();
      const client = s3Client({
        endpoint: env.S3_ENDPOINT!,
        accessKeyId: env.S3_ACCESS_KEY_ID!,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
      });
      try {
        const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: env.S3_BUCKET! }));
        return (listed.Uploads ?? []).length;
      } finally {
        client.destroy();
      }
    }

    async function assertNothingLeft(): Promise<void> {
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
      assert.equal(await unfinishedUploads(), 0);
    }

    it('a 1-byte file, and a file in one chunk', async () => {
      await uploadAndVerify(server(), admin.token, Buffer.from([7]), [1]);
      const file = randomBytes(100_000);
      await uploadAndVerify(server(), admin.token, file, [file.length]);
      await assertNothingLeft();
    });

    it('12 MiB in chunks that straddle the 5 MiB parts comes back exact', async () => {
      const file = randomBytes(12 * MiB + 17);
      await uploadAndVerify(server(), admin.token, file, [3 * MiB, 3 * MiB + 1, 1, 4 * MiB, 7]);
      await assertNothingLeft();
    });

    it('property: random files cut into random chunkings come back byte-exact', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ minLength: 1, maxLength: 30_000 }),
          fc.array(fc.integer({ min: 1, max: 10_000 }), { maxLength: 6 }),
          async (bytes, sizes) => {
            await uploadAndVerify(server(), admin.token, Buffer.from(bytes), sizes);
          },
        ),
        { numRuns: 6 },
      );
      await assertNothingLeft();
    });

    it('a failed continuation (too many bytes) discards the multipart upload and the spool', async () => {
      const file = randomBytes(7 * MiB);
      const first = await sendChunk(server(), admin.token, { file, start: 0, end: 6 * MiB - 1 });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const token = first.body.partialToken;
      const bad = await sendChunk(server(), admin.token, {
        file,
        start: 6 * MiB,
        end: 7 * MiB - 1,
        token,
        body: randomBytes(MiB + 1),
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 1002);
      await assertNothingLeft();
    });

    it('an upload abandoned midway leaves nothing after the idle cleanup', async () => {
      const file = randomBytes(8 * MiB);
      const first = await sendChunk(server(), admin.token, { file, start: 0, end: 6 * MiB - 1 });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(await unfinishedUploads(), 1);
      clock.advance(30 * 60_000);
      await server().chute.jobs.runNow('discard-idle-upload-sessions');
      await assertNothingLeft();
    });
  });
});
