// Where file bytes live. Two implementations pass one test suite: a local folder (default) and S3-compatible
// object storage. Every method streams; none holds a whole file in memory.
import type { Readable } from 'node:stream';

/** Inclusive byte range, as in HTTP: bytes start..end. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectInfo {
  size: number;
}

/**
 * The state of an append-style upload (chunked uploads): JSON-serialisable so that it can be kept in the database
 * and continued by whichever instance receives the next chunk. Opaque to callers.
 */
export type AppendState = { readonly kind: string; readonly key: string; readonly size: number } & Record<
  string,
  unknown
>;

export interface AppendInfo {
  length?: number;
  durable?: boolean;
}

/** What put() is told besides the bytes. */
export interface PutInfo {
  contentType: string;
  /**
   * The object may become visible under its key only once this has resolved (the bytes are written meanwhile); when
   * it rejects, put() rejects with its error and leaves nothing behind.
   */
  ready?: Promise<unknown>;
}

export interface Datasource {
  readonly kind: 'local' | 's3';
  /** The folders of this datasource's temp files (temp.ts names them): puts, and appends where they differ. */
  readonly tempDirs: readonly string[];

  /**
   * Streams `body` into storage under `key` and resolves once the bytes are durable (local: file fsynced, renamed
   * into place, directory fsynced; S3: the upload completed). If `body` errors or is destroyed (size limit cut-off,
   * client gone), rejects with that error and leaves nothing behind: no object, no temp data.
   */
  put(key: string, body: Readable, info: PutInfo): Promise<ObjectInfo>;

  /**
   * A stream of the object's bytes, or of one inclusive range of them. Rejects with StorageNotFoundError when there
   * is no object. The caller checks the range against stat() first: an `end` past the last byte is clamped to it; a
   * range that starts at or past the end (or is malformed) rejects with RangeError.
   */
  get(key: string, range?: ByteRange): Promise<Readable>;

  /** Size of the object, or null when there is none. */
  stat(key: string): Promise<ObjectInfo | null>;

  /**
   * Removes the object; removing one that is not there is not an error.
   *
   * Every method that takes a key rejects with InvalidStorageKeyError unless it is a relative '/'-separated path
   * without empty, '.' or '..' segments, backslashes, NUL or control characters (see keys.ts). '/' makes sub-folders.
   */
  delete(key: string): Promise<void>;

  /**
   * Starts an append-style upload that will end up under `key`. Nothing is visible under `key` until
   * completeAppend(). Keep the returned state (and each later one) with the upload record: it is all another call,
   * or another instance, needs to continue: no call keeps data on one instance's disk between calls.
   * `chunkSize` (the first append's length) and `totalSize`, when known, let S3 pick a part size that fits.
   */
  beginAppend(key: string, info: { contentType: string; chunkSize?: number; totalSize?: number }): Promise<AppendState>;

  /**
   * Appends `body` to the upload (calls are sequential, never concurrent for one upload). Resolves with the new
   * state. If `body` errors, rejects and the upload is left as it was before this call, or unusable (the caller then
   * aborts it); it never contains partial bytes of a failed append that a later complete() would publish.
   * `length`, when known, is how many bytes the body will hold: a hint for how to write it, not a check.
   * `durable`: resolve only once the appended bytes (and the temp data holding them) would survive a crash, as put()
   * promises for a whole object (tus uploads acknowledge each PATCH so); without it they need to be durable only when
   * completeAppend() publishes them. A body that simply ends (rather than errors) is appended as far as it came.
   */
  append(state: AppendState, body: Readable, info?: AppendInfo): Promise<AppendState>;

  /**
   * Publishes the appended bytes under the key, durably (same guarantee as put()). No second copy of the data is
   * made where avoidable (local: fsync + rename of the temp file). Completing with zero appended bytes publishes an
   * empty object. After it resolves the state is spent: do not append to, complete or abort it again.
   */
  completeAppend(state: AppendState): Promise<ObjectInfo>;

  /** Discards an unfinished append-style upload and all its temp data. Idempotent. */
  abortAppend(state: AppendState): Promise<void>;

  /** Releases clients and handles. */
  close(): Promise<void>;
}

export class InvalidStorageKeyError extends Error {
  constructor(
    readonly key: string,
    readonly problem: string,
  ) {
    super(`invalid storage key ${JSON.stringify(key)}: ${problem}`);
    this.name = 'InvalidStorageKeyError';
  }
}

export class StorageNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`no stored object under ${key}`);
    this.name = 'StorageNotFoundError';
  }
}
