// S3 for tests: a real S3-compatible gateway (scripts/ceph-rgw.sh, started by .ci/run) found through
// TEST_S3_ENDPOINT / TEST_S3_ACCESS_KEY / TEST_S3_SECRET_KEY, or the env file the script writes. Every suite gets a
// fresh bucket, emptied and removed after it. Without a gateway the S3 suites are skipped with a printed notice.
//
//   describeS3('uploads on S3', (s3Env) => {
//     const server = useTestServer(() => ({ engine, env: { ...s3Env(), FILES_MAX_FILE_SIZE: '10mb' } }));
//     it(...);
//   });
import { readFileSync } from 'node:fs';
import { after, before, describe } from 'node:test';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  AbortMultipartUploadCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { randomString } from '../../src/lib/security/ids.js';

/** Where scripts/ceph-rgw.sh writes the endpoint and keys of the gateway it started. */
export const CEPH_RGW_ENV_FILE = '/tmp/chute-ceph-rgw/env';

export interface S3Gateway {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
}

function readEnvFile(file: string): Record<string, string> {
  try {
    const out: Record<string, string> = {};
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const match = /^(?:export\s+)?([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (match) out[match[1]!] = match[2]!.replace(/^['"]|['"]$/g, '');
    }
    return out;
  } catch {
    return {};
  }
}

/** The gateway to test against, or undefined when none is configured. */
export function s3Gateway(): S3Gateway | undefined {
  const env = process.env.TEST_S3_ENDPOINT ? process.env : readEnvFile(CEPH_RGW_ENV_FILE);
  const endpoint = env.TEST_S3_ENDPOINT;
  const accessKeyId = env.TEST_S3_ACCESS_KEY;
  const secretAccessKey = env.TEST_S3_SECRET_KEY;
  if (!endpoint || !accessKeyId || !secretAccessKey) return undefined;
  return { endpoint, accessKeyId, secretAccessKey };
}

let noticePrinted = false;
function printS3Notice(): void {
  if (noticePrinted) return;
  noticePrinted = true;
  console.log(
    '# NOTICE: TEST_S3_ENDPOINT is not set and no gateway is running (scripts/ceph-rgw.sh start): the S3 tests are SKIPPED',
  );
}

export function s3Client(gateway: S3Gateway): S3Client {
  return new S3Client({
    endpoint: gateway.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKeyId, secretAccessKey: gateway.secretAccessKey },
  });
}

/** Environment variables that make a Chute store its files in `bucket` on the gateway. */
export function s3EnvFor(gateway: S3Gateway, bucket: string, prefix = 'chute/'): Record<string, string> {
  return {
    DATASOURCE: 's3',
    S3_ENDPOINT: gateway.endpoint,
    S3_REGION: 'us-east-1',
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: gateway.accessKeyId,
    S3_SECRET_ACCESS_KEY: gateway.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: prefix,
  };
}

/** Creates a fresh bucket; `drop` aborts its unfinished multipart uploads, deletes its objects and the bucket. */
export async function createTestBucket(gateway: S3Gateway): Promise<{ bucket: string; drop: () => Promise<void> }> {
  const client = s3Client(gateway);
  const bucket = `chute-test-${randomString(12, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    bucket,
    drop: async () => {
      try {
        await emptyBucket(client, bucket);
        await client.send(new DeleteBucketCommand({ Bucket: bucket }));
      } finally {
        client.destroy();
      }
    },
  };
}

async function emptyBucket(client: S3Client, bucket: string): Promise<void> {
  const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  for (const upload of uploads.Uploads ?? []) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }));
  }
  for (;;) {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (listed.Contents ?? []).map((object) => ({ Key: object.Key! }));
    if (keys.length === 0) return;
    await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
  }
}

/**
 * Creates a fresh bucket and returns the env for startTestServer that stores files in it, with the function that
 * removes it; or undefined (and a printed notice) when no gateway is available.
 */
export async function s3TestEnv(): Promise<{ env: Record<string, string>; drop: () => Promise<void> } | undefined> {
  const gateway = s3Gateway();
  if (!gateway) {
    printS3Notice();
    return undefined;
  }
  const { bucket, drop } = await createTestBucket(gateway);
  return { env: s3EnvFor(gateway, bucket), drop };
}

/**
 * Declares a suite that runs against S3 with its own bucket (created before, emptied and removed after the suite).
 * `fn` receives a getter for the env of startTestServer / loadConfig. Without a gateway: a skipped suite and a notice.
 */
export function describeS3(name: string, fn: (s3Env: () => Record<string, string>) => void): void {
  const gateway = s3Gateway();
  if (!gateway) {
    printS3Notice();
    describe(
      `${name} [s3]`,
      { skip: 'no S3 gateway: set TEST_S3_ENDPOINT or run scripts/ceph-rgw.sh start' },
      () => undefined,
    );
    return;
  }
  describe(`${name} [s3]`, () => {
    let env: Record<string, string> | undefined;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      const created = await createTestBucket(gateway);
      env = s3EnvFor(gateway, created.bucket);
      drop = created.drop;
    });
    after(async () => {
      await drop?.();
    });
    fn(() => {
      if (!env) throw new Error('the S3 test bucket has not been created');
      return env;
    });
  });
}
