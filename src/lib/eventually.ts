// A value now, or later. The hot paths answer synchronously when every step has its value now (on SQLite the look-up
// of a cached row, bytes already in memory, a view counted in memory), and through promises otherwise.

export type Eventually<T> = T | Promise<T>;

/** `fn` applied to `value` now, or once it settles. */
export function then<T, R>(value: Eventually<T>, fn: (value: T) => Eventually<R>): Eventually<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
