// The rules a new account password must meet (NIST SP 800-63B, 3.1.1.2): a minimum length (the server setting
// passwordMinLength, 8 by default), counted in Unicode code points after NFKC; at most PASSWORD_MAX_LENGTH; every
// character allowed and no composition rules; and none of the 10,000 most common passwords, in any case. Only new
// passwords are checked: an account keeps signing in with the password it has.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../errors.js';

/** passwordMinLength's default, and the range an admin may set it to (SP 800-63B asks for at least 8). */
export const PASSWORD_MIN_LENGTH_DEFAULT = 8;
export const PASSWORD_MIN_LENGTH_LOWEST = 8;
export const PASSWORD_MIN_LENGTH_HIGHEST = 64;

/** The longest password, in code points after NFKC (SP 800-63B: at least 64); it bounds the work of hashing. */
export const PASSWORD_MAX_LENGTH = 1024;

/**
 * The longest password text a request may carry, in UTF-16 units: room for PASSWORD_MAX_LENGTH characters outside
 * the Basic Multilingual Plane (emoji take two units each) and for text that NFKC makes shorter.
 */
export const PASSWORD_MAX_UNITS = 4 * PASSWORD_MAX_LENGTH;

export type PasswordRule = 'too-short' | 'too-long' | 'too-common' | 'not-text';

export interface PasswordProblem {
  rule: PasswordRule;
  /** For a person: what the password must be. */
  message: string;
}

/** The form a password is hashed in (SP 800-63B 5.1.1.2: NFKC), so that every way of typing it matches. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** A password's length as SP 800-63B counts it: code points, after NFKC. */
export function passwordLength(password: string): number {
  let count = 0;
  for (const _ of normalizePassword(password)) count++;
  return count;
}

const LONE_SURROGATE = /\p{Cs}/u;

let common: Set<string> | undefined;

/** The file of common passwords, in the installation's resources/ folder (found from src/ and from dist/ alike). */
function commonPasswordsFile(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'resources', 'common-passwords.txt');
    if (existsSync(file)) return file;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('resources/common-passwords.txt is missing from the installation');
    dir = parent;
  }
}

/** The 10,000 most common passwords, lower case (read once, at the first check). */
export function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(
    readFileSync(commonPasswordsFile(), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean),
  );
  return common;
}

/** Whether a password is one of the common ones, compared without regard to case. */
export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(normalizePassword(password).toLowerCase());
}

/** The first rule a new password breaks, or null when it may be used. */
export function passwordProblem(password: string, minLength: number): PasswordProblem | null {
  if (LONE_SURROGATE.test(password)) return { rule: 'not-text', message: 'must be valid Unicode text' };
  const length = passwordLength(password);
  if (length < minLength) return { rule: 'too-short', message: `must be at least ${minLength} characters long` };
  if (length > PASSWORD_MAX_LENGTH) {
    return { rule: 'too-long', message: `must be at most ${PASSWORD_MAX_LENGTH} characters long` };
  }
  if (isCommonPassword(password)) {
    return { rule: 'too-common', message: 'is one of the 10,000 most common passwords: choose another' };
  }
  return null;
}

/**
 * Refuses a new password that breaks a rule: 1000, as a validation error of `path` would be, with the rule's name
 * (`passwordRule`) and the lengths the server asks for (`minLength`, `maxLength`) beside the issues.
 */
export function assertNewPassword(password: string, minLength: number, path = 'body.password'): void {
  const problem = passwordProblem(password, minLength);
  if (!problem) return;
  const field = path.replace(/^body\./, '');
  throw new ApiError(1000, `${field} ${problem.message}`, {
    extra: {
      issues: [{ path, message: problem.message }],
      passwordRule: problem.rule,
      minLength,
      maxLength: PASSWORD_MAX_LENGTH,
    },
  });
}
