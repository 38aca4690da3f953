// Everything derived from the instance SECRET: keyed hashes for looking up tokens and sessions without storing them,
// authenticated encryption for values we must show back (the API token, TOTP secrets), and signed short-lived tokens.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { loadOrCreateDataDirValue } from '../data-dir-values.js';

/** The file in DATA_DIR that keeps the generated secret. */
export const SECRET_FILE = 'secret';

/** The SECRET from the environment, or one generated once and kept in DATA_DIR so restarts keep sessions valid. */
export function loadOrCreateSecret(dataDir: string, fromEnv?: string): string {
  if (fromEnv) return fromEnv;
  return loadOrCreateDataDirValue(
    dataDir,
    SECRET_FILE,
    () => randomBytes(48).toString('base64url'),
    (v) => v.length >= 32,
  );
}

/** Most hashes Secrets.hash keeps, and the longest value it keeps one for (tokens and session ids are far shorter). */
const MEMO_ENTRIES = 1024;
const MEMO_VALUE_LENGTH = 256;

export class Secrets {
  private readonly hashKey: Buffer;
  private readonly encryptionKey: Buffer;
  private readonly signingKey: Buffer;

  constructor(secret: string) {
    const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', secret, 'chute', purpose, 32));
    this.hashKey = derive('lookup-hash');
    this.encryptionKey = derive('encryption');
    this.signingKey = derive('signed-tokens');
  }

  /** The latest hashes by value: an API token sends the same value with every request (an upload's HMAC ~8 us). */
  private readonly hashes = new Map<string, string>();

  /** Keyed hash (HMAC-SHA256, hex) for storing a bearer secret so it can be found but not recovered. */
  hash(value: string): string {
    let hashed = this.hashes.get(value);
    if (hashed === undefined) {
      hashed = createHmac('sha256', this.hashKey).update(value).digest('hex');
      if (value.length <= MEMO_VALUE_LENGTH) {
        // Bounded: emptied when full (a value in use comes back at its next request).
        if (this.hashes.size >= MEMO_ENTRIES) this.hashes.clear();
        this.hashes.set(value, hashed);
      }
    }
    return hashed;
  }

  /** AES-256-GCM; output is base64url(iv | tag | ciphertext). */
  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  decrypt(encoded: string): string {
    const raw = Buffer.from(encoded, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /** A compact signed token carrying `claims` until `expiresAt` (epoch ms): base64url(json).base64url(hmac). */
  sign(purpose: string, claims: Record<string, unknown>, expiresAt: number): string {
    const body = Buffer.from(JSON.stringify({ p: purpose, e: expiresAt, c: claims })).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The claims of a token made by sign() for the same purpose, or null if forged, for another purpose or expired. */
  verify<T extends Record<string, unknown>>(purpose: string, token: string, now: number): T | null {
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p: string; e: number; c: T };
      if (parsed.p !== purpose || typeof parsed.e !== 'number' || parsed.e <= now) return null;
      return parsed.c;
    } catch {
      return null;
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.signingKey).update(body).digest('base64url');
  }
}
