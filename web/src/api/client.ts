// The one way the dashboard talks to the API: same-origin fetch with the session cookie, JSON in and out, and every
// failure turned into an ApiRequestError whose message a person can read (see lib/errors.ts).
import { humanMessage } from '../lib/errors';

export class ApiRequestError extends Error {
  constructor(
    /** The service error code (the spec's `code`), or 0 when the server could not be reached or answered non-JSON. */
    readonly code: number,
    readonly status: number,
    /** What to show a person. */
    message: string,
    /** The server's own `error` text, for the console. */
    readonly serverText?: string,
    /** Extra properties of the error body (for instance the failing fields of a 1000). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Turns a non-2xx response into an ApiRequestError. */
export async function errorFromResponse(res: Response): Promise<ApiRequestError> {
  let body: Record<string, unknown> | null;
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    body = null;
  }
  const code = typeof body?.code === 'number' ? body.code : 0;
  const serverText = typeof body?.error === 'string' ? body.error : undefined;
  return new ApiRequestError(
    code,
    res.status,
    humanMessage(code, res.status, serverText),
    serverText,
    body ?? undefined,
  );
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  body?: unknown;
  query?: Query;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData || options.body instanceof Blob) body = options.body;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(withQuery(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body,
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiRequestError(0, 0, 'Could not reach the server. Check your connection and try again.');
  }
  if (!res.ok) throw await errorFromResponse(res);
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/json')) return (await res.json()) as T;
  return (await res.text()) as T;
}
