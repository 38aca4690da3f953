// What the dashboard says about a new password before sending it: its length as the server counts it (Unicode code
// points after NFKC, src/lib/security/password-rules.ts), and an estimate of its strength by zxcvbn-ts with its
// common and English dictionaries. Those weigh about a megabyte, so they are loaded the first time a password is
// typed into a form that shows the meter, never with the rest of the dashboard.

import { ApiRequestError } from '../api/client';
import type { PublicServerInfo } from '../api/types';

/** The sentence for a new password the server refused by its rules (a 1000 with passwordRule), or null. */
export function passwordRefusal(err: unknown): string | null {
  if (!(err instanceof ApiRequestError) || err.code !== 1000) return null;
  const { passwordRule: rule, minLength, maxLength } = err.details ?? {};
  switch (rule) {
    case 'too-short':
      return `The password must be at least ${String(minLength)} characters long.`;
    case 'too-long':
      return `The password must be at most ${String(maxLength)} characters long.`;
    case 'too-common':
      return 'That password is one of the 10,000 most common ones, which are guessed first. Choose another.';
    case 'not-text':
      return 'The password holds characters that are not valid text.';
    default:
      return null;
  }
}

/** What a new password must be, from GET /api/server/public (the defaults while it loads). */
export function passwordRules(server: PublicServerInfo | null): { min: number; max: number; description: string } {
  const min = server?.passwordMinLength ?? 8;
  const max = server?.passwordMaxLength ?? 1024;
  return {
    min,
    max,
    description: `At least ${min} characters. Any characters count, spaces and emoji too; a few words make a good one.`,
  };
}

/** A password's length as the server counts it. */
export function passwordLength(password: string): number {
  return [...password.normalize('NFKC')].length;
}

/** The sentence for a password the server would refuse for its length, or null. */
export function passwordLengthProblem(password: string, min: number, max: number): string | null {
  const length = passwordLength(password);
  if (length < min) return `The password must be at least ${min} characters long (it has ${length}).`;
  if (length > max) return `The password must be at most ${max} characters long.`;
  return null;
}

export interface Strength {
  /** 0 (guessed at once) to 4 (very hard to guess). */
  score: 0 | 1 | 2 | 3 | 4;
  /** Why it is weak, when zxcvbn knows ("This is a top-10 common password"). */
  warning: string | null;
  suggestions: string[];
}

export type StrengthCheck = (password: string, userInputs: string[]) => Strength;

let checker: Promise<StrengthCheck> | undefined;

/** The strength estimator, loaded once (its own chunks of the build). */
export function loadStrengthCheck(): Promise<StrengthCheck> {
  checker ??= Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
  ]).then(([core, common, en]) => {
    const zxcvbn = new core.ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
      translations: en.translations,
      useLevenshteinDistance: true,
    });
    return (password, userInputs) => {
      const result = zxcvbn.check(password, userInputs);
      return { score: result.score, warning: result.feedback.warning, suggestions: result.feedback.suggestions };
    };
  });
  // A failed load (the server was updated meanwhile) may be tried again with the next password typed.
  checker.catch(() => (checker = undefined));
  return checker;
}
