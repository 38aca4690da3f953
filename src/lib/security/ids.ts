// Random identifiers and secrets, all from node:crypto (never Math.random).
import { randomBytes, randomFillSync, randomInt } from 'node:crypto';

export const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Random bytes handed out from a pool refilled by randomFillSync: one call into the CSPRNG for many identifiers instead
 * of one each (it was 3% of a small upload's main-thread CPU). Each byte is handed out once.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** A string of `length` characters drawn uniformly from `alphabet` (rejection sampling, no modulo bias). */
export function randomString(length: number, alphabet: string = ALPHANUMERIC): string {
  if (alphabet.length < 2 || alphabet.length > 256) throw new RangeError('alphabet must have 2 to 256 characters');
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < limit) out += alphabet[byte % alphabet.length];
  }
  return out;
}

/** `length` lowercase letters and digits (about 5.17 bits each), from the pool. */
export function randomLowercase(length: number): string {
  return randomString(length, ID_ALPHABET);
}

/** A record identifier: 25 lowercase alphanumerics (~129 bits), starting with a letter. */
export function newId(): string {
  return ID_ALPHABET[randomInt(26)] + randomString(24, ID_ALPHABET);
}

/** Characters of the time part of newTimeOrderedId(): milliseconds in base 36, enough until the year 5138. */
const TIME_CHARS = 9;

/**
 * An identifier of the same shape as newId() (25 lowercase letters and digits, starting with a letter) for the rows of
 * a table that grows by many inserts, files above all: 'f', the time in milliseconds in base 36 (digits before
 * letters, so that the text sorts as the number does), then 15 random characters (~77 bits from the CSPRNG). Every
 * index that orders the owner's files by a value most of them share (their type, size, views, favourite flag, expiry,
 * name given by the client) ends in the id: random ids put each new file at a random place in each of them, and a
 * batch of 14 uploads then rewrites ~8 random pages per file to SQLite's log (bench/RESULTS.md, 2026-11-27 16:30:
 * 504 -> 256 us of the main thread per inserted file, most of it the commit). Ids that grow with time add the new
 * files at the end of those ranges, next to each other. The id tells when the file was made, as its createdAt does;
 * two made in the same millisecond still differ in 77 random bits.
 */
export function newTimeOrderedId(now: number = Date.now()): string {
  return `f${Math.max(0, Math.floor(now)).toString(36).padStart(TIME_CHARS, '0').slice(-TIME_CHARS)}${randomString(15, ID_ALPHABET)}`;
}

/** A bearer secret (API token, session cookie): 32 random bytes, base64url. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}
