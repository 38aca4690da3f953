// The upload options a client sends as x-service-* headers, read and validated once per request. A bad value
// -> 1001 naming the header; a bad explicit file name -> 1007 (characters) or 1009 (name).
import { randomInt } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../lib/errors.js';
import { parseDuration } from '../lib/durations.js';
import { fileNameProblem } from '../lib/file-names.js';
import type { FileNameFormat } from '../lib/file-names.js';
import { SETTING_DEFINITIONS, type Settings } from './settings.js';

export const UPLOAD_HEADERS = {
  deletesAt: 'x-service-deletes-at',
  format: 'x-service-format',
  password: 'x-service-password',
  maxViews: 'x-service-max-views',
  originalName: 'x-service-original-name',
  fileName: 'x-service-filename',
  fileExtension: 'x-service-file-extension',
  folder: 'x-service-folder',
  domain: 'x-service-domain',
  noJson: 'x-service-no-json',
} as const;

export interface UploadOptions {
  /** Epoch ms after which the file is deleted, or null to keep it. The default expiry is already applied. */
  deletesAt: number | null;
  format: FileNameFormat;
  /** Clear-text password to protect the files with (hashed before it is stored). */
  password: string | null;
  maxViews: number | null;
  /** Keep the client's file name as originalName (shown in downloads). */
  keepOriginalName: boolean;
  /** Explicit served name (without the extension); replaces the format. */
  fileName: string | null;
  /** Extension replacing the client's, with its dot. */
  fileExtension: string | null;
  folderId: string | null;
  /** Host (optionally with scheme and port) for the returned links; validated when links are built. */
  domain: string | null;
  /** Answer plain-text links, one per line, instead of JSON. */
  noJson: boolean;
}

/** Largest explicit password, in characters. */
const MAX_PASSWORD_LENGTH = 1024;
/** Latest accepted expiry (uploads and edits): the end of year 9999. */
export const MAX_EXPIRY_MS = 253402300799999;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined ? undefined : text.trim();
}

function invalid(name: string, why: string): ApiError {
  return new ApiError(1001, `${name} ${why}`, { extra: { header: name } });
}

/**
 * HTTP header values arrive as latin1; clients that send UTF-8 names (most do) get them back as written when the
 * bytes are valid UTF-8.
 */
export function decodeHeaderText(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\u0000-\u007f]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : value;
}

function parseBoolean(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '') return false;
  const v = value.toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw invalid(name, 'must be true or false');
}

/**
 * `never`, a duration from now (30m, 7d, 1 week), or an absolute date (ISO 8601, optionally as `date=<ISO>`) in the
 * future. Absent -> the default expiry from the settings.
 */
function parseDeletesAt(value: string | undefined, settings: Settings, now: number): number | null {
  const name = UPLOAD_HEADERS.deletesAt;
  if (value === undefined || value === '') {
    const fallback = settings.filesDefaultExpiration === null ? null : parseDuration(settings.filesDefaultExpiration);
    return fallback === null ? null : now + fallback;
  }
  if (value.toLowerCase() === 'never') return null;
  const duration = parseDuration(value);
  if (duration !== null) return now + duration;
  const dateText = value.replace(/^date=/i, '');
  const at = /^\d{4}-\d{2}-\d{2}/.test(dateText) ? Date.parse(dateText) : Number.NaN;
  if (Number.isNaN(at)) throw invalid(name, 'must be never, a duration such as 30m or 7d, or an ISO 8601 date');
  if (at <= now) throw invalid(name, 'must be in the future');
  if (at > MAX_EXPIRY_MS) throw invalid(name, 'is too far in the future');
  return at;
}

function parseMaxViews(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > 2_147_483_647) {
    throw invalid(UPLOAD_HEADERS.maxViews, 'must be a whole number of at least 1');
  }
  return Number(value);
}

/** Validates an explicit served name: 1007 for path separators and control characters, 1009 for the rest. */
export function assertUsableFileName(name: string): void {
  const problem = fileNameProblem(name);
  if (problem === 'characters') throw new ApiError(1007, JSON.stringify(name));
  if (problem === 'name') throw new ApiError(1009, JSON.stringify(name));
}

function parseExtension(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  if (!/^\.?[A-Za-z0-9]{1,16}$/.test(value)) {
    throw invalid(UPLOAD_HEADERS.fileExtension, 'must be letters and digits, such as png or .png');
  }
  return `.${value.replace(/^\./, '').toLowerCase()}`;
}

export function parseUploadOptions(headers: IncomingHttpHeaders, settings: Settings, now: number): UploadOptions {
  const formatText = header(headers, UPLOAD_HEADERS.format);
  let format = settings.filesDefaultFormat;
  if (formatText !== undefined && formatText !== '') {
    const parsed = SETTING_DEFINITIONS.filesDefaultFormat.schema.safeParse(formatText.toLowerCase());
    if (!parsed.success) throw invalid(UPLOAD_HEADERS.format, 'must be one of random, uuid, date, name, random-words');
    format = parsed.data;
  }

  const password = header(headers, UPLOAD_HEADERS.password);
  if (password !== undefined && password.length > MAX_PASSWORD_LENGTH) {
    throw invalid(UPLOAD_HEADERS.password, `must be at most ${MAX_PASSWORD_LENGTH} characters`);
  }

  const fileNameText = header(headers, UPLOAD_HEADERS.fileName);
  const fileName = fileNameText === undefined || fileNameText === '' ? null : decodeHeaderText(fileNameText);
  if (fileName !== null) assertUsableFileName(fileName);

  const folder = header(headers, UPLOAD_HEADERS.folder);
  if (folder !== undefined && folder.length > 64) throw invalid(UPLOAD_HEADERS.folder, 'is not a folder id');

  // Several comma-separated domains: one of them per request, like Zipline.
  const domains = (header(headers, UPLOAD_HEADERS.domain) ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  const domain = domains.length === 0 ? undefined : domains[randomInt(domains.length)];

  return {
    deletesAt: parseDeletesAt(header(headers, UPLOAD_HEADERS.deletesAt), settings, now),
    format,
    password: password === undefined || password === '' ? null : decodeHeaderText(password),
    maxViews: parseMaxViews(header(headers, UPLOAD_HEADERS.maxViews)),
    keepOriginalName: parseBoolean(UPLOAD_HEADERS.originalName, header(headers, UPLOAD_HEADERS.originalName)),
    fileName,
    fileExtension: parseExtension(header(headers, UPLOAD_HEADERS.fileExtension)),
    folderId: folder === undefined || folder === '' ? null : folder,
    domain: domain ?? null,
    noJson: parseBoolean(UPLOAD_HEADERS.noJson, header(headers, UPLOAD_HEADERS.noJson)),
  };
}
