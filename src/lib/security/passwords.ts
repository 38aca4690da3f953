// Password hashing with argon2id. verifyPassword against a missing hash still does the work of a real check,
// so that "no such user" and "wrong password" take the same time.
import { hash, verify } from '@node-rs/argon2';
import type { Secrets } from './secrets.js';

// algorithm 2 is Argon2id (the package exports it as an ambient const enum, which isolated modules cannot use).
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

let dummyHash: Promise<string> | undefined;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (!storedHash) {
    dummyHash ??= hash('chute-timing-equaliser', OPTIONS);
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/**
 * Which password an unlock token was issued for (a keyed hash of its argon2 hash, whose salt changes with every new
 * password): a token carrying it stops working the moment the password is changed, removed or set again.
 */
export function passwordVersion(secrets: Pick<Secrets, 'hash'>, passwordHash: string | null): string {
  return secrets.hash(`password-version:${passwordHash ?? ''}`).slice(0, 16);
}
