// The value and change handler of a text input bound to a string state: `{...bound(name, setName)}`, so that a form
// does not read the change event for every field.
import type { ChangeEvent } from 'react';

export function bound(value: string, set: (value: string) => void) {
  return { value, onChange: (event: ChangeEvent<HTMLInputElement>) => set(event.currentTarget.value) };
}

/** A required field bound to a string state, with what a password manager should fill in (`autoComplete`). */
export function requiredField(autoComplete: string, value: string, set: (value: string) => void) {
  return { required: true, autoComplete, ...bound(value, set) };
}
