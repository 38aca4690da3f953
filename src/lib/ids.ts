// Random identifiers and secrets, all from node:crypto (never Math.random).
import { randomBytes, randomInt } from 'node:crypto';

export const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A string of `length` characters drawn uniformly from `alphabet` (rejection sampling, no modulo bias). */
export function randomString(length: number, alphabet: string = ALPHANUMERIC): string {
  if (alphabet.length < 2 || alphabet.length > 256) throw new RangeError('alphabet must have 2 to 256 characters');
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(Math.ceil((length - out.length) * 1.3) + 4)) {
      if (byte >= limit) continue;
      out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A record identifier: 25 lowercase alphanumerics (~129 bits), starting with a letter. */
export function newId(): string {
  return ID_ALPHABET[randomInt(26)] + randomString(24, ID_ALPHABET);
}

/** A bearer secret (API token, session cookie): 32 random bytes, base64url. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}
