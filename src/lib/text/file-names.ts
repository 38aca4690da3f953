// The served names of uploaded files: the formats an upload can ask for, all random parts from node:crypto.
// Names are unique by the files.name constraint; `attempt` > 0 means the previous candidate was taken.
import { randomInt, randomUUID } from 'node:crypto';
import path from 'node:path';
import { ApiError } from '../errors.js';
import { ALPHANUMERIC, randomString } from '../security/ids.js';
import { RANDOM_WORDS_ADJECTIVES, RANDOM_WORDS_NOUNS } from './words.js';

/** The name formats an upload may ask for (x-service-format) and the `defaultFormat` setting may name. */
export const FILE_NAME_FORMATS = ['random', 'uuid', 'date', 'name', 'random-words'] as const;
export type FileNameFormat = (typeof FILE_NAME_FORMATS)[number];

export interface NameRequest {
  format: FileNameFormat;
  /** Length of the random part of the `random` format. */
  length: number;
  /** Extension including the dot ('.png'), or '' for none. */
  extension: string;
  /** The client's file name, for the `name` format. */
  originalName: string | null;
  /** Upload time (epoch ms), for the `date` format. */
  now: number;
}

/** Largest served name, in characters (the extension included). */
export const MAX_FILE_NAME_LENGTH = 200;

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function dateStamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}_${pad(d.getUTCHours())}-${pad(d.getUTCMinutes())}-${pad(d.getUTCSeconds())}`;
}

function randomWords(): string {
  const pick = (list: readonly string[]) => list[randomInt(list.length)]!;
  return `${pick(RANDOM_WORDS_ADJECTIVES)}-${pick(RANDOM_WORDS_ADJECTIVES)}-${pick(RANDOM_WORDS_NOUNS)}`;
}

/** The name a file's client gave it, without the extension, made safe to serve (see sanitizeFileName). */
function baseOfOriginal(originalName: string | null): string {
  const clean = sanitizeFileName(originalName ?? '');
  const ext = path.extname(clean);
  return (ext ? clean.slice(0, -ext.length) : clean) || 'file';
}

/** One candidate name. Formats that can collide by design (date, name) get a random suffix on retries. */
export function candidateName(request: NameRequest, attempt: number): string {
  let base: string;
  switch (request.format) {
    case 'uuid':
      base = randomUUID();
      break;
    case 'date':
      base = dateStamp(request.now);
      break;
    case 'name':
      base = baseOfOriginal(request.originalName);
      break;
    case 'random-words':
      base = randomWords();
      break;
    default:
      base = randomString(request.length, ALPHANUMERIC);
  }
  const needsSuffix = request.format === 'date' || request.format === 'name' || request.format === 'random-words';
  return suffixedName(base, request.extension, needsSuffix ? attempt : 0);
}

/** `base` + extension; from attempt 1 on with a random suffix (`base-Xk3f9.ext`), within MAX_FILE_NAME_LENGTH. */
export function suffixedName(base: string, extension: string, attempt: number): string {
  const suffix = attempt > 0 ? `-${randomString(Math.min(4 + attempt, 12), ALPHANUMERIC)}` : '';
  const room = MAX_FILE_NAME_LENGTH - extension.length - suffix.length;
  return `${base.slice(0, Math.max(1, room))}${suffix}${extension}`;
}

/** NUL, the C0 and C1 control characters and DEL: never part of a name. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether a name has a path separator or a control character (no served or original name may). */
function hasPathOrControlCharacters(name: string): boolean {
  return name.includes('/') || name.includes('\\') || CONTROL_CHARACTERS.test(name);
}

/**
 * Makes a client-supplied name safe to store and serve: keeps only the last path segment, drops NUL and other
 * control characters, trims spaces and dots at the ends, caps the length. May return ''.
 */
export function sanitizeFileName(name: string): string {
  const last = name.split(/[/\\]/).pop() ?? '';
  const cleaned = last.replace(new RegExp(CONTROL_CHARACTERS, 'g'), '').replace(/^[\s.]+|[\s.]+$/g, '');
  return cleaned === '..' ? '' : cleaned.slice(0, 255);
}

export type FileNameProblem = 'characters' | 'name';

/**
 * Why an explicit name (x-service-filename, a rename) cannot be used, or null: path separators, NUL and control
 * characters are 'characters' (1007); empty, only dots, '..' anywhere or too long is 'name' (1009).
 */
export function fileNameProblem(name: string): FileNameProblem | null {
  if (hasPathOrControlCharacters(name)) return 'characters';
  if (name.trim() === '' || /^\.+$/.test(name) || name.includes('..') || name.length > MAX_FILE_NAME_LENGTH)
    return 'name';
  if (name !== name.trim()) return 'name';
  // /raw/.thumbnail.<fileId>.webp serves thumbnails (Zipline's names): no file may be called so.
  if (name.toLowerCase().startsWith('.thumbnail.')) return 'name';
  return null;
}

/** The extension of a file name, lower-case, with its dot ('' when there is none). */
export function extensionOf(name: string | null | undefined): string {
  if (!name) return '';
  const ext = path.extname(name);
  return /^\.[A-Za-z0-9]{1,16}$/.test(ext) ? ext.toLowerCase() : '';
}

/**
 * The name of a file's link without its extension (abc for abc.png), or null when the name has no extension, or
 * what is left would not be a usable name itself (.png, 'abc .png').
 */
export function withoutExtension(name: string): string | null {
  const extension = extensionOf(name);
  if (extension === '') return null;
  const base = name.slice(0, -extension.length);
  return fileNameProblem(base) === null ? base : null;
}

/** Validates an explicit served name: 1007 for path separators and control characters, 1009 for the rest. */
export function assertUsableFileName(name: string): void {
  const problem = fileNameProblem(name);
  if (problem === 'characters') throw new ApiError(1007, JSON.stringify(name));
  if (problem === 'name') throw new ApiError(1009, JSON.stringify(name));
}

/** Validates an original name given in an edit: path separators, control characters or blank -> 1008. */
export function assertUsableOriginalName(name: string): void {
  if (hasPathOrControlCharacters(name) || name.trim() === '') throw new ApiError(1008, JSON.stringify(name));
}
