// useSubmit(): the busy and failure state of a form or an action button, so that no form keeps its own pair of
// useState for them. run() marks the form busy (with which action, where a form has several buttons), clears the
// last failure, runs the action and, when it throws, keeps the failure in words for the form to show.
import { useCallback, useRef, useState } from 'react';
import { errorMessage } from './notify';

export interface Submit<Action extends string> {
  /** An action is running. */
  busy: boolean;
  /** Which action is running (the form's buttons spin each for its own), or null. */
  running: Action | null;
  /** The last failure in words (or a check of the form's own), or null. */
  error: string | null;
  /** Sets or clears the failure shown: a check before sending, or clearing it as the person types. */
  setError: (error: string | null) => void;
  /**
   * Runs `action` unless one is running already; true when it succeeded. A failure is put in words by `describe`
   * (default: the API's error sentence) and kept in `error`; `describe` may show it elsewhere (a field's own error, a
   * notification) and answer null.
   */
  run: (action: () => Promise<unknown>, which?: Action) => Promise<boolean>;
}

export function useSubmit<Action extends string = 'submit'>(
  describe: (err: unknown) => string | null = errorMessage,
): Submit<Action> {
  const [running, setRunning] = useState<Action | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A double click must not send twice: the state update lands after the second click's handler has run.
  const runningRef = useRef(false);
  const describeRef = useRef(describe);
  describeRef.current = describe;

  const run = useCallback(async (action: () => Promise<unknown>, which?: Action): Promise<boolean> => {
    if (runningRef.current) return false;
    runningRef.current = true;
    setRunning(which ?? ('submit' as Action));
    setError(null);
    try {
      await action();
      return true;
    } catch (err) {
      setError(describeRef.current(err));
      return false;
    } finally {
      runningRef.current = false;
      setRunning(null);
    }
  }, []);

  return { busy: running !== null, running, error, setError, run };
}
