// tus-js-client (the real client, its Node build) against a test server: uploads that finish, that are stopped part
// way, and that resume from an upload URL; and one PATCH sent from a process of its own (tus-child.ts).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import * as tus from 'tus-js-client';
import { authHeaders, type TestServer } from './server.js';

export interface TusRun {
  /** The upload's URL (Location of the creation). */
  url: string;
  /** Headers of the answer that finished the upload. */
  fileUrl: string | null;
  fileId: string | null;
}

export interface TusRunOptions {
  metadata?: Record<string, string>;
  /** Bytes per PATCH (the client's chunkSize); one PATCH when absent. */
  chunkSize?: number;
  /** Resume this upload instead of creating one. */
  uploadUrl?: string;
  /** Stop the upload (abort()) once this many bytes were acknowledged by a PATCH answer. */
  stopAfterAcknowledged?: number;
  headers?: Record<string, string>;
  /** creation-with-upload: send the first bytes with the POST. */
  uploadDataDuringCreation?: boolean;
}

export class TusStopped extends Error {
  constructor(readonly url: string) {
    super('stopped');
  }
}

/** Uploads `data`; rejects with the client's error (its originalResponse tells the status), or TusStopped. */
export function tusUpload(
  server: TestServer,
  auth: string,
  data: Buffer,
  options: TusRunOptions = {},
): Promise<TusRun> {
  return new Promise<TusRun>((resolve, reject) => {
    const upload: tus.Upload = new tus.Upload(data, {
      endpoint: `${server.url}/api/upload/tus`,
      ...(options.uploadUrl ? { uploadUrl: options.uploadUrl } : {}),
      headers: { ...authHeaders(auth), ...options.headers },
      metadata: options.metadata ?? { filename: 'data.bin', filetype: 'application/octet-stream' },
      ...(options.chunkSize ? { chunkSize: options.chunkSize } : {}),
      uploadDataDuringCreation: options.uploadDataDuringCreation ?? false,
      retryDelays: [],
      onChunkComplete: (_chunk, acknowledged) => {
        if (options.stopAfterAcknowledged !== undefined && acknowledged >= options.stopAfterAcknowledged) {
          void upload.abort().then(() => reject(new TusStopped(upload.url!)));
        }
      },
      onError: (err) => reject(err),
      onSuccess: ({ lastResponse }) =>
        resolve({
          url: upload.url!,
          fileUrl: lastResponse.getHeader('chute-file-url') ?? null,
          fileId: lastResponse.getHeader('chute-file-id') ?? null,
        }),
    });
    upload.start();
  });
}

/** The HTTP status of a tus-js-client error, and the answer's body. */
export function tusErrorOf(err: unknown): { status: number; body: any } {
  const response = (err as tus.DetailedError).originalResponse;
  if (!response) throw err;
  const text = response.getBody();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.getStatus(), body };
}

/**
 * Resumes the upload at `uploadUrl` with one PATCH of `size` bytes, sent by tus-js-client in a child process (so that
 * it keeps writing while the server answers): the answer that ended the upload, or the error when none reached it.
 */
export async function tusPatchFromChild(
  uploadUrl: string,
  auth: string,
  size: number,
): Promise<{ status: number; body: string } | { error: string }> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--import',
    'tsx',
    path.join(import.meta.dirname, 'tus-child.ts'),
    uploadUrl,
    auth,
    String(size),
  ]);
  return JSON.parse(stdout.trim()) as { status: number; body: string } | { error: string };
}
