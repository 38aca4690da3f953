// Password hashing with argon2id. verifyPassword against a missing hash still does the work of a real check,
// so that "no such user" and "wrong password" take the same time.
//
// Passwords are hashed in their NFKC form (SP 800-63B 5.1.1.2), so that the same password typed on another keyboard
// or system (composed or decomposed accents, full-width letters) matches. Hashes made before that were made of the
// text as typed: a password that NFKC changes is also tried as typed, so that those accounts keep signing in.
import { hash, verify } from '@node-rs/argon2';
import { normalizePassword } from './password-rules.js';
import type { Secrets } from './secrets.js';

// algorithm 2 is Argon2id (the package exports it as an ambient const enum, which isolated modules cannot use).
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

let dummyHash: Promise<string> | undefined;

export function hashPassword(password: string): Promise<string> {
  return hash(normalizePassword(password), OPTIONS);
}

async function matches(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  const normalized = normalizePassword(password);
  // The same number of argon2 checks for an account and for none: it depends on the typed text alone.
  const forms = normalized === password ? [password] : [normalized, password];
  if (!storedHash) {
    dummyHash ??= hash('chute-timing-equaliser', OPTIONS);
    for (const form of forms) await matches(await dummyHash, form);
    return false;
  }
  for (const form of forms) if (await matches(storedHash, form)) return true;
  return false;
}

/**
 * Which password an unlock token was issued for (a keyed hash of its argon2 hash, whose salt changes with every new
 * password): a token carrying it stops working the moment the password is changed, removed or set again.
 */
export function passwordVersion(secrets: Pick<Secrets, 'hash'>, passwordHash: string | null): string {
  return secrets.hash(`password-version:${passwordHash ?? ''}`).slice(0, 16);
}
