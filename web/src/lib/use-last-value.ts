// What a closing modal keeps showing.
import { useRef } from 'react';

/**
 * The last value that was not null: a modal opened for `value` keeps showing it while it fades out after `value`
 * went back to null, instead of going blank or changing its words.
 */
export function useLastValue<T>(value: T | null): T | null {
  const last = useRef(value);
  if (value !== null) last.current = value;
  return last.current;
}
