// Requests Chute itself makes to other servers (webhooks, the release feed): each one bounded in time (connecting,
// answering and reading together), in what it reads of the answer, and in where it goes: a redirect is followed only
// on the same origin (scheme, host and port), never to another host.

export interface OutboundOptions {
  /** The whole exchange, from connecting to the last byte read, within this many ms. */
  timeoutMs: number;
  /** At most this much of the answer's body is read; the rest is dropped. */
  maxResponseBytes: number;
  /** Aborts the request early (a job told to stop). */
  signal?: AbortSignal | undefined;
  /** Same-origin redirects followed (default 3). */
  maxRedirects?: number;
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface OutboundResponse {
  status: number;
  headers: Headers;
  /** The body's first maxResponseBytes, as text. */
  body: string;
  /** Whether the body was longer than what was read. */
  truncated: boolean;
}

/** Why an outbound request got no answer: timeout, connection refused, a redirect elsewhere ... */
export class OutboundError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export async function outboundRequest(
  url: string,
  request: OutboundRequest,
  options: OutboundOptions,
): Promise<OutboundResponse> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  let current = new URL(url);
  let { method, body } = request;
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await fetch(current, {
        method,
        headers: { 'user-agent': 'Chute', ...request.headers },
        ...(body !== undefined ? { body } : {}),
        redirect: 'manual',
        signal,
      });
      const location = response.headers.get('location');
      if (REDIRECT_STATUSES.has(response.status) && location !== null) {
        await response.body?.cancel().catch(() => undefined);
        const next = new URL(location, current);
        if (next.origin !== current.origin) {
          throw new OutboundError(
            `answered ${response.status}, a redirect to ${next.origin}: redirects to another host are not followed`,
          );
        }
        if (redirects >= (options.maxRedirects ?? 3)) throw new OutboundError('too many redirects');
        if (response.status === 303 || (method === 'POST' && response.status !== 307 && response.status !== 308)) {
          method = 'GET';
          body = undefined;
        }
        current = next;
        continue;
      }
      const read = await readBounded(response, options.maxResponseBytes);
      return { status: response.status, headers: response.headers, ...read };
    }
  } catch (err) {
    if (err instanceof OutboundError) throw err;
    if (timeout.aborted) throw new OutboundError(`no answer within ${options.timeoutMs} ms`, { cause: err });
    if (options.signal?.aborted) throw new OutboundError('the request was aborted', { cause: err });
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
    throw new OutboundError(`could not reach ${current.origin}: ${reason}`, { cause: err });
  }
}

async function readBounded(response: Response, maxBytes: number): Promise<{ body: string; truncated: boolean }> {
  if (!response.body) return { body: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { body: Buffer.concat(chunks).toString('utf8'), truncated };
}
