// The one error type of every layer: ApiError(code, context?). Its message and HTTP status come from the
// specification's table (error-codes.ts), never from the place that throws it. No framework import, so a service,
// a datasource or a route can throw it alike; src/http/errors.ts turns it into the reply.
import { ERROR_MESSAGES, statusOfCode, type ErrorCode } from './error-codes.js';

export type { ErrorCode } from './error-codes.js';

export interface ApiErrorOptions {
  /** Extra properties for the body, e.g. the failing fields of a validation error. */
  extra?: Record<string, unknown>;
  /**
   * Only for the generic 9xxx codes, whose status "varies" by the spec (429, 413, 415 from the HTTP layer); and 410
   * for a 4xxx not-found whose thing existed and is gone (Zipline's /view of an expired file).
   */
  status?: number;
  /** Extra headers for the response (Retry-After, Content-Range ...). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly statusCode: number;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    readonly code: ErrorCode,
    readonly context?: string,
    options: ApiErrorOptions = {},
  ) {
    super(formatErrorMessage(code, context), { cause: options.cause });
    this.name = 'ApiError';
    const fixed = statusOfCode(code);
    const gone = options.status === 410 && fixed === 404;
    this.statusCode = options.status !== undefined && (code >= 9000 || gone) ? options.status : fixed;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  toBody(): ErrorBody {
    return { ...this.extra, error: this.message, code: this.code, statusCode: this.statusCode };
  }
}

export interface ErrorBody {
  error: string;
  code: number;
  statusCode: number;
  [extra: string]: unknown;
}

export function formatErrorMessage(code: ErrorCode, context?: string): string {
  return `E${code}: ${ERROR_MESSAGES[code]}${context ? `: ${context}` : ''}`;
}

export function isApiError(err: unknown, code?: ErrorCode): err is ApiError {
  return err instanceof ApiError && (code === undefined || err.code === code);
}
