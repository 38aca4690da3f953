// Sending one file: in a single POST /api/upload over XMLHttpRequest (fetch() cannot report upload progress), or,
// when large, resumable by tus (/api/upload/tus) with tus-js-client. Errors come back as ApiRequestError in words.
import * as tus from 'tus-js-client';
import { ApiRequestError, errorFromResponse, type ApiAnswer } from '../../api/client';
import type { components } from '../../api/openapi';
import { humanMessage } from '../../lib/errors';

/** An uploaded file as the answers describe it (UploadedFile, or PendingFile of a chunked upload). */
export type UploadedLink = Pick<
  components['schemas']['UploadedFile'],
  'name' | 'url' | 'rawUrl' | 'size' | 'type' | 'warnings'
>;
type UploadPath = '/api/upload';

/** Progress of one request's body: sent bytes of the body, 0..1. */
type OnFraction = (fraction: number) => void;
/** Bytes of the file sent so far (approximate while a request is under way). */
export type OnProgress = (sentBytes: number) => void;

/** How often a request refused with 429 (the upload rate limit) is tried again, after the time the server asks. */
const RATE_LIMIT_RETRIES = 3;

function abortError(): DOMException {
  return new DOMException('The upload was cancelled.', 'AbortError');
}

/**
 * Header values must be ISO-8859-1: a UTF-8 name or password is sent as its bytes, one character each, which the
 * server reads back as UTF-8 (decodeHeaderText in src/http/uploads/headers.ts).
 */
export function headerText(value: string): string {
  return Array.from(new TextEncoder().encode(value), (byte) => String.fromCharCode(byte)).join('');
}

interface XhrAnswer {
  status: number;
  text: string;
  contentType: string;
  retryAfter: string | null;
}

function sendOnce(
  url: string,
  body: FormData,
  headers: Record<string, string>,
  onFraction: OnFraction,
  signal: AbortSignal,
): Promise<XhrAnswer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError());
      return;
    }
    const xhr = new XMLHttpRequest();
    const onAbort = () => xhr.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const done = () => signal.removeEventListener('abort', onAbort);
    xhr.open('POST', url);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onFraction(Math.min(1, event.loaded / event.total));
    };
    xhr.onload = () => {
      done();
      resolve({
        status: xhr.status,
        text: xhr.responseText,
        contentType: xhr.getResponseHeader('content-type') ?? '',
        retryAfter: xhr.getResponseHeader('retry-after'),
      });
    };
    xhr.onerror = () => {
      done();
      reject(new ApiRequestError(0, 0, 'The connection to the server was lost. Check your connection and retry.'));
    };
    xhr.onabort = () => {
      done();
      reject(abortError());
    };
    xhr.send(body);
  });
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = window.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      window.clearTimeout(timer);
      reject(abortError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** POSTs a multipart body; answers its JSON, or throws ApiRequestError in words. Waits out a 429 a few times. */
async function post<P extends UploadPath>(
  url: P,
  body: FormData,
  headers: Record<string, string>,
  onFraction: OnFraction,
  signal: AbortSignal,
): Promise<ApiAnswer<P, 'post'>> {
  for (let attempt = 0; ; attempt++) {
    const answer = await sendOnce(url, body, headers, onFraction, signal);
    if (answer.status === 429 && attempt < RATE_LIMIT_RETRIES) {
      const seconds = Number(answer.retryAfter);
      onFraction(0);
      await wait((Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 120) : 5) * 1000, signal);
      continue;
    }
    if (answer.status >= 200 && answer.status < 300) {
      try {
        return JSON.parse(answer.text) as ApiAnswer<P, 'post'>;
      } catch {
        throw new ApiRequestError(0, answer.status, 'The server answered something unexpected. Try again.');
      }
    }
    if (answer.status < 200 || answer.status > 599)
      throw new ApiRequestError(0, answer.status, humanMessage(0, answer.status));
    throw await errorFromResponse(
      new Response(answer.text, {
        status: answer.status,
        headers: { 'content-type': answer.contentType || 'text/plain' },
      }),
    );
  }
}

/** One request with the whole file (a multipart part named `file`). */
export async function uploadWhole(
  file: File,
  options: Record<string, string>,
  onProgress: OnProgress,
  signal: AbortSignal,
): Promise<UploadedLink> {
  const form = new FormData();
  form.append('file', file, file.name);
  const answer = await post('/api/upload', form, options, (f) => onProgress(f * file.size), signal);
  const uploaded = answer.files[0];
  if (!uploaded) throw new ApiRequestError(0, 200, 'The server did not keep the file. Try again.');
  return uploaded;
}

export interface ChunkProgress {
  /** 1-based number of the chunk being sent. */
  index: number;
  count: number;
}

/** The answer headers that name the file a finished tus upload became (src/http/uploads/tus.ts). */
function linkFromAnswer(file: File, answer: tus.HttpResponse): UploadedLink | null {
  const url = answer.getHeader('chute-file-url');
  const rawUrl = answer.getHeader('chute-file-raw-url');
  const name = answer.getHeader('chute-file-name');
  if (!url || !rawUrl || !name) return null;
  return {
    name: decodeURIComponent(name),
    url,
    rawUrl,
    size: file.size,
    type: file.type || 'application/octet-stream',
  };
}

/** A tus-js-client failure as ApiRequestError in words (the server answers in the spec's error shape). */
async function tusFailure(err: unknown): Promise<Error> {
  const answer = (err as tus.DetailedError).originalResponse;
  if (!answer)
    return new ApiRequestError(0, 0, 'The connection to the server was lost. Check your connection and retry.');
  const status = answer.getStatus();
  return errorFromResponse(
    new Response(answer.getBody(), {
      status: status >= 200 && status <= 599 ? status : 500,
      headers: { 'content-type': answer.getHeader('content-type') || 'text/plain' },
    }),
  );
}

/**
 * A resumable upload by tus (POST /api/upload/tus, then PATCHes of `chunkSize` bytes): tus-js-client keeps the
 * upload's URL in localStorage under the file's fingerprint (name, type, size, last change), so the same file chosen
 * again after a page reload or a lost connection goes on where the server's offset says. The upload options go as
 * x-service-* headers with the creation. Cancelling ends the upload on the server too.
 */
export async function uploadResumable(
  file: File,
  options: Record<string, string>,
  chunkSize: number,
  onProgress: OnProgress,
  onChunk: (chunk: ChunkProgress) => void,
  signal: AbortSignal,
): Promise<UploadedLink> {
  if (signal.aborted) throw abortError();
  const count = Math.max(1, Math.ceil(file.size / chunkSize));
  return new Promise<UploadedLink>((resolve, reject) => {
    const upload = new tus.Upload(file, {
      endpoint: '/api/upload/tus',
      chunkSize,
      headers: options,
      metadata: { filename: file.name, filetype: file.type || 'application/octet-stream' },
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      // A lost connection is tried again after these pauses, each time from the server's offset.
      retryDelays: [0, 1000, 3000, 5000, 10000],
      onProgress: (sent) => onProgress(sent),
      onChunkComplete: (_size, acknowledged) => {
        if (acknowledged < file.size) onChunk({ index: Math.floor(acknowledged / chunkSize) + 1, count });
      },
      onSuccess: ({ lastResponse }) => {
        const link = linkFromAnswer(file, lastResponse);
        if (link) resolve(link);
        else reject(new ApiRequestError(0, lastResponse.getStatus(), 'The server did not name the file. Try again.'));
      },
      onError: (err) => {
        void tusFailure(err).then(reject);
      },
    });
    signal.addEventListener(
      'abort',
      () => {
        // Ends the upload on the server and forgets its URL.
        void upload.abort(true).catch(() => undefined);
        reject(abortError());
      },
      { once: true },
    );
    void upload
      .findPreviousUploads()
      .then((previous) => {
        const last = previous.sort((a, b) => b.creationTime.localeCompare(a.creationTime))[0];
        if (last) upload.resumeFromPreviousUpload(last);
      })
      .catch(() => undefined)
      .finally(() => {
        if (signal.aborted) return;
        onChunk({ index: 1, count });
        upload.start();
      });
  });
}
