// Under a new password: how long it is against the server's minimum, and how hard it would be to guess (zxcvbn-ts,
// loaded the first time a password is typed). Said in words, not by colour alone, and announced politely to screen
// readers; the bar only repeats the words.
import { Progress, Stack, Text } from '@mantine/core';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { loadStrengthCheck, passwordLength, type StrengthCheck } from '../lib/password-strength';

const LEVELS = [
  { label: 'very weak', color: 'red' },
  { label: 'weak', color: 'orange' },
  { label: 'fair', color: 'yellow' },
  { label: 'strong', color: 'teal' },
  { label: 'very strong', color: 'green' },
] as const;

/** The estimator once it is loaded (null before, or when it could not be loaded: the length is still said). */
function useStrengthCheck(wanted: boolean): StrengthCheck | null {
  const [check, setCheck] = useState<StrengthCheck | null>(null);
  useEffect(() => {
    if (!wanted || check) return;
    let current = true;
    loadStrengthCheck().then(
      (loaded) => current && setCheck(() => loaded),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [wanted, check]);
  return check;
}

export function PasswordStrengthMeter({
  password,
  minLength,
  userInputs = [],
}: {
  password: string;
  minLength: number;
  /** Words the password should not be made of: the username, the site's name. */
  userInputs?: string[];
}) {
  const typed = useDeferredValue(password);
  const check = useStrengthCheck(typed !== '');
  const inputs = userInputs.filter(Boolean).join('\n');
  const strength = useMemo(
    () => (check && typed ? check(typed, inputs ? inputs.split('\n') : []) : null),
    [check, typed, inputs],
  );
  if (typed === '') return null;

  const length = passwordLength(typed);
  const short = length < minLength;
  const level = strength ? LEVELS[strength.score] : null;
  const sentence = short
    ? `Too short: ${length} of at least ${minLength} characters.`
    : level
      ? `Strength: ${level.label}.${strength?.warning ? ` ${strength.warning}` : ''}`
      : 'Checking its strength…';
  const hint = !short && strength && strength.score < 3 ? strength.suggestions[0] : undefined;

  return (
    <Stack gap={4} data-testid="password-strength" data-score={short ? 'short' : (strength?.score ?? 'unknown')}>
      <Progress
        aria-hidden
        size="sm"
        value={short ? 10 : level ? 20 * (strength!.score + 1) : 0}
        color={short ? 'red' : (level?.color ?? 'gray')}
      />
      <Text size="sm" aria-live="polite">
        {sentence}
        {hint ? ` ${hint}` : ''}
      </Text>
    </Stack>
  );
}
