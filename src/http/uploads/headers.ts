// The headers of an upload request, read and validated once per request: the upload options a client sends as
// x-service-* headers (or under their Zipline names, x-zipline-*) (a bad value -> 1001 naming the header; a bad explicit file name -> 1007 or 1009), and the
// chunk headers of POST /api/upload/partial (x-service-p-*, Content-Range).
import { randomInt } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../../lib/errors.js';
import { MAX_EXPIRY_MS, parseDuration } from '../../lib/text/durations.js';
import { assertUsableFileName } from '../../lib/text/file-names.js';
import type { ChunkPosition } from '../../services/uploads/chunked.js';
import { SETTING_DEFINITIONS, type Settings } from '../../services/operations/settings.js';
import type { UploadOptions } from '../../services/uploads/store-files.js';
import {
  COMPRESSION_TYPES,
  type CompressionType,
  type ImageProcessingOptions,
} from '../../services/media/image-processing.js';

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
  private: 'x-service-private',
  removeGps: 'x-service-remove-gps',
  extensionless: 'x-service-extensionless',
  compressionPercent: 'x-service-image-compression-percent',
  compressionType: 'x-service-image-compression-type',
} as const;

/** Largest explicit password, in characters. */
const MAX_PASSWORD_LENGTH = 1024;

/** Chute's option headers start so; Zipline clients send the same options under ZIPLINE_PREFIX. */
const OWN_PREFIX = 'x-service-';
const ZIPLINE_PREFIX = 'x-zipline-';

/**
 * A request header's raw value. Every `x-service-<name>` header is also accepted as `x-zipline-<name>`, so that ShareX
 * and Flameshot configurations made for Zipline work unchanged; when both come, the `x-service-` one wins. Every
 * option header is read through here (headerText, hasHeader), so a new option gets its Zipline name too.
 */
function rawHeader(headers: IncomingHttpHeaders, name: string): string | string[] | undefined {
  const value = headers[name];
  if (value !== undefined) return value;
  const alias = ziplineName(name);
  return alias === null ? undefined : headers[alias];
}

/** The `x-zipline-` name of an `x-service-` header (null for others), made once per name: every upload asks. */
const ziplineNames = new Map<string, string | null>();
function ziplineName(name: string): string | null {
  let alias = ziplineNames.get(name);
  if (alias === undefined) {
    alias = name.startsWith(OWN_PREFIX) ? ZIPLINE_PREFIX + name.slice(OWN_PREFIX.length) : null;
    if (ziplineNames.size < 1000) ziplineNames.set(name, alias);
  }
  return alias;
}

/** Whether the request has the header (for an `x-service-` one: under either name). */
export function hasHeader(headers: IncomingHttpHeaders, name: string): boolean {
  return rawHeader(headers, name) !== undefined;
}

/** A request header's (first) value, trimmed (for an `x-service-` one: its `x-zipline-` name when it is absent). */
export function headerText(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = rawHeader(headers, name);
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined ? undefined : text.trim();
}

/** An option header as the client sent it: under which name (x-service- or x-zipline-) and its trimmed value. */
interface SentHeader {
  name: string;
  value: string | undefined;
}

function sentHeader(headers: IncomingHttpHeaders, name: string): SentHeader {
  const alias = headers[name] === undefined ? ziplineName(name) : null;
  const sentName = alias !== null && headers[alias] !== undefined ? alias : name;
  return { name: sentName, value: headerText(headers, name) };
}

/** 1001 naming the header as the client sent it, so that a Zipline config's author finds the line to fix. */
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

function parseBoolean({ name, value }: SentHeader): boolean {
  if (value === undefined || value === '') return false;
  const v = value.toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw invalid(name, 'must be true or false');
}

/**
 * A file name sent in a header, as Zipline's clients send it: `encodeURIComponent(name)`, decoded once (Zipline decodes
 * x-zipline-filename and x-zipline-p-filename the same way). Raw UTF-8 bytes (latin1 on arrival) are read as UTF-8 first,
 * so a name sent unencoded comes out as written too. A `%` that does not start an escape -> null.
 */
export function decodeFileNameHeader(value: string): string | null {
  const text = decodeHeaderText(value);
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * `never`, a duration from now (30m, 7d, 1 week), an absolute date in ISO 8601, or `date=<date>` with any date a
 * JavaScript Date reads (what Zipline takes: `date=` + `new Date().toString()`, an ISO or an RFC 1123 date), in the
 * future. Absent -> the default expiry from the settings.
 */
function parseDeletesAt({ name, value }: SentHeader, settings: Settings, now: number): number | null {
  if (value === undefined || value === '') {
    const fallback = settings.filesDefaultExpiration === null ? null : parseDuration(settings.filesDefaultExpiration);
    return fallback === null ? null : now + fallback;
  }
  if (value.toLowerCase() === 'never') return null;
  const duration = parseDuration(value);
  if (duration !== null) return now + duration;
  const prefixed = /^date=/i.test(value);
  const dateText = value.replace(/^date=/i, '').trim();
  const at = prefixed || /^\d{4}-\d{2}-\d{2}/.test(dateText) ? Date.parse(dateText) : Number.NaN;
  if (Number.isNaN(at)) {
    throw invalid(name, 'must be never, a duration such as 30m or 7d, an ISO 8601 date, or date=<date>');
  }
  if (at <= now) throw invalid(name, 'must be in the future');
  if (at > MAX_EXPIRY_MS) throw invalid(name, 'is too far in the future');
  return at;
}

/** Largest view limit (PostgreSQL's integer). */
const MAX_VIEWS_HIGHEST = 2_147_483_647;

/** A whole number from 1 up; absent, empty or 0 (Zipline's "no limit", which it ignores) -> no limit. */
function parseMaxViews({ name, value }: SentHeader): number | null {
  if (value === undefined || value === '' || /^0+$/.test(value)) return null;
  if (!/^\d{1,10}$/.test(value) || Number(value) > MAX_VIEWS_HIGHEST) {
    throw invalid(name, `must be a whole number from 0 to ${MAX_VIEWS_HIGHEST} (0 means no limit)`);
  }
  return Number(value);
}

function parseExtension({ name, value }: SentHeader): string | null {
  if (value === undefined || value === '') return null;
  if (!/^\.?[A-Za-z0-9]{1,16}$/.test(value)) {
    throw invalid(name, 'must be letters and digits, such as png or .png');
  }
  return `.${value.replace(/^\./, '').toLowerCase()}`;
}

/** x-service-private: true or false; absent -> settings.uploadsPrivateByDefault. */
function parsePrivate(header: SentHeader, settings: Settings): boolean {
  if (header.value === undefined || header.value === '') return settings.uploadsPrivateByDefault;
  return parseBoolean(header);
}

/** x-service-original-name: true or false; absent -> settings.filesKeepOriginalName. */
function parseKeepOriginalName(header: SentHeader, settings: Settings): boolean {
  if (header.value === undefined || header.value === '') return settings.filesKeepOriginalName;
  return parseBoolean(header);
}

/** x-service-extensionless: true or false; absent -> settings.filesExtensionlessUrls. */
function parseExtensionless(header: SentHeader, settings: Settings): boolean {
  if (header.value === undefined || header.value === '') return settings.filesExtensionlessUrls;
  return parseBoolean(header);
}

/**
 * x-service-remove-gps (absent: the filesRemoveGpsMetadata setting) and x-service-image-compression-percent (0-100)
 * with x-service-image-compression-type (jpg, png or webp; jpg when absent, and alone it does nothing).
 */
function parseImageProcessing(headers: IncomingHttpHeaders, settings: Settings): ImageProcessingOptions {
  const gps = sentHeader(headers, UPLOAD_HEADERS.removeGps);
  const removeGps = gps.value === undefined || gps.value === '' ? settings.filesRemoveGpsMetadata : parseBoolean(gps);
  const percent = sentHeader(headers, UPLOAD_HEADERS.compressionPercent);
  const percentText = percent.value;
  const compressionType = sentHeader(headers, UPLOAD_HEADERS.compressionType);
  const typeText = compressionType.value?.toLowerCase();
  let type: CompressionType = 'jpg';
  if (typeText !== undefined && typeText !== '') {
    const normalised = typeText === 'jpeg' ? 'jpg' : typeText;
    if (!(COMPRESSION_TYPES as readonly string[]).includes(normalised)) {
      throw invalid(compressionType.name, 'must be jpg, png or webp');
    }
    type = normalised as CompressionType;
  }
  if (percentText === undefined || percentText === '') return { removeGps, compression: null };
  if (!/^\d{1,3}$/.test(percentText) || Number(percentText) > 100) {
    throw invalid(percent.name, 'must be a whole number from 0 to 100');
  }
  return { removeGps, compression: { percent: Number(percentText), type } };
}

export function parseUploadOptions(headers: IncomingHttpHeaders, settings: Settings, now: number): UploadOptions {
  const formatHeader = sentHeader(headers, UPLOAD_HEADERS.format);
  const formatText = formatHeader.value;
  let format = settings.filesDefaultFormat;
  if (formatText !== undefined && formatText !== '') {
    // Zipline's older name for random-words is gfycat.
    const asked = formatText.toLowerCase() === 'gfycat' ? 'random-words' : formatText.toLowerCase();
    const parsed = SETTING_DEFINITIONS.filesDefaultFormat.schema.safeParse(asked);
    if (!parsed.success) {
      throw invalid(formatHeader.name, 'must be one of random, uuid, date, name, random-words (or gfycat)');
    }
    format = parsed.data;
  }

  const passwordHeader = sentHeader(headers, UPLOAD_HEADERS.password);
  const password = passwordHeader.value;
  if (password !== undefined && password.length > MAX_PASSWORD_LENGTH) {
    throw invalid(passwordHeader.name, `must be at most ${MAX_PASSWORD_LENGTH} characters`);
  }

  const fileNameHeader = sentHeader(headers, UPLOAD_HEADERS.fileName);
  const fileNameText = fileNameHeader.value;
  let fileName: string | null = null;
  if (fileNameText !== undefined && fileNameText !== '') {
    fileName = decodeFileNameHeader(fileNameText);
    if (fileName === null) throw new ApiError(1009, `${fileNameHeader.name} has a % that starts no escape`);
    assertUsableFileName(fileName);
  }

  const folderHeader = sentHeader(headers, UPLOAD_HEADERS.folder);
  const folder = folderHeader.value;
  if (folder !== undefined && folder.length > 64) throw invalid(folderHeader.name, 'is not a folder id');

  // Several comma-separated domains: one of them per request, like Zipline.
  const domains = (headerText(headers, UPLOAD_HEADERS.domain) ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  const domain = domains.length === 0 ? undefined : domains[randomInt(domains.length)];

  return {
    deletesAt: parseDeletesAt(sentHeader(headers, UPLOAD_HEADERS.deletesAt), settings, now),
    format,
    password: password === undefined || password === '' ? null : decodeHeaderText(password),
    maxViews: parseMaxViews(sentHeader(headers, UPLOAD_HEADERS.maxViews)),
    keepOriginalName: parseKeepOriginalName(sentHeader(headers, UPLOAD_HEADERS.originalName), settings),
    fileName,
    fileExtension: parseExtension(sentHeader(headers, UPLOAD_HEADERS.fileExtension)),
    folderId: folder === undefined || folder === '' ? null : folder,
    domain: domain ?? null,
    noJson: parseBoolean(sentHeader(headers, UPLOAD_HEADERS.noJson)),
    private: parsePrivate(sentHeader(headers, UPLOAD_HEADERS.private), settings),
    extensionless: parseExtensionless(sentHeader(headers, UPLOAD_HEADERS.extensionless), settings),
    imageProcessing: parseImageProcessing(headers, settings),
  };
}

export const CHUNK_HEADERS = {
  contentRange: 'content-range',
  contentLength: 'x-service-p-content-length',
  contentType: 'x-service-p-content-type',
  fileName: 'x-service-p-filename',
  lastChunk: 'x-service-p-lastchunk',
  token: 'x-service-p-token',
  /** The retired scheme's header. */
  identifier: 'x-service-p-identifier',
} as const;

const RETIRED_SCHEME =
  'the x-service-p-identifier scheme was retired: send the first chunk without x-service-p-token, then send the ' +
  'partialToken of each answer as x-service-p-token with the next chunk';

export interface ChunkHeaders {
  position: ChunkPosition;
  token: string | null;
  fileName: string;
  contentType: string;
}

function required(headers: IncomingHttpHeaders, name: string): string {
  const value = headerText(headers, name);
  if (value === undefined || value === '') throw new ApiError(1002, `the ${name} header is missing`);
  return value;
}

/**
 * Reads and checks the chunk headers: the retired x-service-p-identifier -> 1003; none of them -> 1004; a missing or malformed one, or rules broken within one
 * request (end before start, past the total, a total other than x-service-p-content-length, lastchunk not matching
 * end = total - 1, an empty file) -> 1002; a size beyond any file -> 5001.
 */
export function parseChunkHeaders(headers: IncomingHttpHeaders): ChunkHeaders {
  if (hasHeader(headers, CHUNK_HEADERS.identifier)) throw new ApiError(1003, RETIRED_SCHEME);
  const names = Object.values(CHUNK_HEADERS);
  if (!names.some((name) => hasHeader(headers, name))) {
    throw new ApiError(1004, `send ${CHUNK_HEADERS.contentRange} and the x-service-p-* headers`);
  }
  const lengthName = sentHeader(headers, CHUNK_HEADERS.contentLength).name;
  const lengthText = required(headers, CHUNK_HEADERS.contentLength);
  if (!/^\d+$/.test(lengthText)) throw new ApiError(1002, `${lengthName} must be a number of bytes`);
  const contentLength = Number(lengthText);
  if (!Number.isSafeInteger(contentLength)) throw new ApiError(5001, `${lengthText} bytes`);
  if (contentLength === 0) {
    throw new ApiError(
      1002,
      'an empty file cannot be uploaded in chunks (no Content-Range describes 0 bytes): use POST /api/upload',
    );
  }

  const rangeText = required(headers, CHUNK_HEADERS.contentRange);
  const range = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16})$/.exec(rangeText);
  if (!range) throw new ApiError(1002, 'Content-Range must be "bytes start-end/total" (zero-based, end inclusive)');
  const [start, end, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
  if (end < start) throw new ApiError(1002, 'the Content-Range end is before its start');
  if (total !== contentLength) {
    throw new ApiError(1002, `the Content-Range total must equal ${lengthName} (the whole file's size)`);
  }
  if (end >= total) throw new ApiError(1002, 'the Content-Range end is past the last byte (total - 1)');

  const lastName = sentHeader(headers, CHUNK_HEADERS.lastChunk).name;
  const lastText = required(headers, CHUNK_HEADERS.lastChunk).toLowerCase();
  if (lastText !== 'true' && lastText !== 'false') throw new ApiError(1002, `${lastName} must be true or false`);
  const lastChunk = lastText === 'true';
  if (lastChunk !== (end === total - 1)) {
    throw new ApiError(1002, `${lastName} must be true exactly when the chunk ends at total - 1`);
  }

  const token = headerText(headers, CHUNK_HEADERS.token);
  return {
    position: { start, end, total, lastChunk },
    token: token === undefined || token === '' ? null : token,
    fileName: partialFileName(headerText(headers, CHUNK_HEADERS.fileName) ?? ''),
    contentType: headerText(headers, CHUNK_HEADERS.contentType) ?? '',
  };
}

/** x-service-p-filename decoded like x-service-filename; a name whose `%` starts no escape is kept as sent. */
function partialFileName(value: string): string {
  return decodeFileNameHeader(value) ?? decodeHeaderText(value);
}
