// Sending one file: in a single POST /api/upload, or in chunks through POST /api/upload/partial (docs/api-spec.md),
// over XMLHttpRequest because fetch() cannot report upload progress. Errors come back as ApiRequestError in words.
import { ApiRequestError, errorFromResponse, type ApiAnswer } from '../../api/client';
import type { components } from '../../api/openapi';
import { humanMessage } from '../../lib/errors';

/** An uploaded file as the answers describe it (UploadedFile, or PendingFile of a chunked upload). */
export type UploadedLink = Pick<components['schemas']['UploadedFile'], 'name' | 'url' | 'rawUrl' | 'size' | 'type'>;
type UploadPath = '/api/upload' | '/api/upload/partial';

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
 * server reads back as UTF-8 (decodeHeaderText in src/http/upload-headers.ts).
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

/**
 * The chunked protocol: chunks in order, one request at a time; the first carries the upload options and no token,
 * every next one the token of the previous answer (and the same x-service-folder). The last answer carries the link
 * of the file the server now assembles in the background.
 */
export async function uploadInChunks(
  file: File,
  options: Record<string, string>,
  chunkSize: number,
  onProgress: OnProgress,
  onChunk: (chunk: ChunkProgress) => void,
  signal: AbortSignal,
): Promise<components['schemas']['FinalChunkResponse']> {
  const total = file.size;
  const count = Math.max(1, Math.ceil(total / chunkSize));
  const folder = options['x-service-folder'];
  let token: string | null = null;
  for (let index = 0; index < count; index++) {
    const start = index * chunkSize;
    const end = Math.min(total, start + chunkSize) - 1;
    const last = end === total - 1;
    const form = new FormData();
    form.append('file', file.slice(start, end + 1), file.name);
    const headers: Record<string, string> = {
      ...(token === null ? options : folder ? { 'x-service-folder': folder } : {}),
      'content-range': `bytes ${start}-${end}/${total}`,
      'x-service-p-content-length': String(total),
      'x-service-p-content-type': file.type || 'application/octet-stream',
      // URL-encoded, as Zipline's dashboard sends it; the server decodes it once.
      'x-service-p-filename': encodeURIComponent(file.name),
      'x-service-p-lastchunk': String(last),
    };
    if (token !== null) headers['x-service-p-token'] = token;
    onChunk({ index: index + 1, count });
    const length = end - start + 1;
    const answer = await post('/api/upload/partial', form, headers, (f) => onProgress(start + f * length), signal);
    if (last) {
      if (answer.partialSuccess !== false || !answer.files[0])
        throw new ApiRequestError(0, 200, 'The server did not finish the upload. Try again.');
      return answer;
    }
    if (answer.partialSuccess !== true)
      throw new ApiRequestError(0, 200, 'The server ended the upload early. Try again.');
    token = answer.partialToken;
  }
  throw new ApiRequestError(0, 0, 'Nothing was sent.');
}
