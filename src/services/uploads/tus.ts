// tus 1.0 uploads (/api/upload/tus, the adapter is src/http/uploads/tus.ts): each upload is a session in upload_sessions
// (protocol 'tus') beside the chunked ones, with the same file description, options, datasource append state and
// assembly. The offset is `received`, written after every PATCH once its bytes are durable: it is the only truth,
// so any instance can take the next request, and an upload survives a restart. A PATCH that ends early keeps what
// arrived; one whose Upload-Checksum does not match keeps nothing. The last byte publishes the bytes and records
// the file in the same request (assembleUpload), so the answer can name it.
import { createHash, type Hash } from 'node:crypto';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import type { AppContext } from '../../context.js';
import type { UploadSessionRow, UserRow } from '../../db/schema/tables.js';
import { ByteLimit, ByteLimitExceededError } from '../../lib/bytes/byte-limit.js';
import { ApiError } from '../../lib/errors.js';
import { fileLink, linkNameOf, rawLink } from '../../lib/text/links.js';
import type { AppendState } from '../../storage/datasource.js';
import { assembleUpload, discardSession, toStoredOptions, TUS_UPLOAD_TTL_MS } from './assembly.js';
import { assertWholeFileFits, reserveFile } from './chunked.js';
import { insertUploadSession, recordTusProgress } from './sessions.js';
import {
  assertEmptyFilesTaken,
  assertUploadFolder,
  describeIncomingFile,
  newStorageKey,
  type UploadOptions,
} from './store-files.js';

export { TUS_UPLOAD_TTL_MS };

/** The checksum extension's algorithms (Tus-Checksum-Algorithm). */
export const TUS_CHECKSUM_ALGORITHMS = ['sha1', 'sha256'] as const;
export type TusChecksumAlgorithm = (typeof TUS_CHECKSUM_ALGORITHMS)[number];

/** An Upload-Checksum header, read: the algorithm and the digest the body must have. */
export interface TusChecksum {
  algorithm: TusChecksumAlgorithm;
  digest: Buffer;
}

/** The file a finished tus upload became. */
export interface TusFinishedFile {
  id: string;
  name: string;
  url: string;
  rawUrl: string;
}

/** What HEAD and PATCH need to know of an upload. */
export interface TusUploadInfo {
  id: string;
  offset: number;
  length: number;
  createdAt: number;
  /** The raw Upload-Metadata of the creation request. */
  uploadMetadata: string | null;
  /** Set once the upload is complete and recorded. */
  file: TusFinishedFile | null;
}

export interface TusCreateInput {
  /** The upload's id (in its URL), a fresh newId(). */
  id: string;
  user: Pick<UserRow, 'id'>;
  /** Upload-Length. */
  length: number;
  options: UploadOptions;
  /** Base of the file's links. */
  baseUrl: string;
  /** From Upload-Metadata: filename and filetype. */
  fileName: string;
  contentType: string;
  uploadMetadata: string | null;
}

/**
 * Checks the limits (size 5001, quota 5002, folder, extension 1006) and opens the upload: nothing is stored yet. An
 * empty upload (Upload-Length 0) becomes its file at once.
 */
export async function createTusUpload(ctx: AppContext, input: TusCreateInput): Promise<TusUploadInfo> {
  const { user, options } = input;
  if (input.length === 0) assertEmptyFilesTaken(ctx);
  await assertUploadFolder(ctx, user.id, options.folderId);
  await assertWholeFileFits(ctx, user.id, input.length);
  const description = describeIncomingFile(ctx, options, input.fileName, input.contentType);
  const key = newStorageKey();
  const appendState = await ctx.storage.beginAppend(key, { contentType: description.type });
  const now = ctx.clock.now();
  const session: UploadSessionRow = {
    id: input.id,
    user_id: user.id,
    token_hash: null,
    token_expires_at: null,
    state: 'open',
    folder_id: options.folderId,
    total_size: input.length,
    received: 0,
    chunks: 0,
    file: JSON.stringify(description),
    options: JSON.stringify(toStoredOptions(ctx, options)),
    base_url: input.baseUrl,
    storage_key: key,
    append_state: JSON.stringify(appendState),
    reserved_name: null,
    reserved_extensionless_name: null,
    incomplete_file_id: null,
    instance_id: ctx.instanceId,
    protocol: 'tus',
    upload_metadata: input.uploadMetadata,
    created_at: now,
    updated_at: now,
  };
  try {
    await insertUploadSession(ctx.db, session);
  } catch (err) {
    await ctx.storage.abortAppend(appendState).catch((e: unknown) => ctx.log.error({ err: e }, 'abortAppend failed'));
    throw err;
  }
  // An empty file is complete at its creation: no PATCH will come.
  if (input.length === 0) return infoOf(session, await finishTusUpload(ctx, session, appendState));
  return infoOf(session, null);
}

function infoOf(session: UploadSessionRow, file: TusFinishedFile | null): TusUploadInfo {
  return {
    id: session.id,
    offset: session.received,
    length: session.total_size,
    createdAt: session.created_at,
    uploadMetadata: session.upload_metadata,
    file,
  };
}

function notFound(id: string): ApiError {
  return new ApiError(
    9002,
    `no tus upload ${id} of yours (finished uploads are listed as files; expired ones are gone)`,
  );
}

/** An upload past its Upload-Expires answers 410 until the clean-up job removes it (404 afterwards). */
function assertNotExpired(ctx: AppContext, session: UploadSessionRow): void {
  if (session.state === 'open' && ctx.clock.now() >= session.created_at + TUS_UPLOAD_TTL_MS) {
    throw new ApiError(9002, `the upload ${session.id} expired`, { status: 410 });
  }
}

function findSession(ctx: AppContext, userId: string, id: string): Promise<UploadSessionRow | undefined> {
  return ctx.db
    .selectFrom('upload_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('protocol', '=', 'tus')
    .executeTakeFirst();
}

/**
 * A finished upload: its incomplete file (which has the upload's id) is COMPLETE and its file still exists. The link
 * uses `baseUrl` (the asking request's).
 */
async function findFinished(
  ctx: AppContext,
  userId: string,
  id: string,
  baseUrl: string,
): Promise<{ size: number; createdAt: number; file: TusFinishedFile } | undefined> {
  const row = await ctx.db
    .selectFrom('incomplete_files')
    .innerJoin('files', 'files.id', 'incomplete_files.file_id')
    .select([
      'files.id as fileId',
      'files.name',
      'files.extensionless_name',
      'files.size',
      'incomplete_files.created_at',
    ])
    .where('incomplete_files.id', '=', id)
    .where('incomplete_files.user_id', '=', userId)
    .where('incomplete_files.status', '=', 'COMPLETE')
    .executeTakeFirst();
  if (!row) return undefined;
  const file = {
    id: row.fileId,
    name: row.name,
    url: fileLink(ctx.settings.get(), baseUrl, linkNameOf(row)),
    rawUrl: rawLink(baseUrl, linkNameOf(row)),
  };
  return { size: row.size, createdAt: row.created_at, file };
}

/** HEAD: the upload's recorded offset, or a finished upload with its file; not the caller's or gone -> 9002 (404). */
export async function getTusUpload(
  ctx: AppContext,
  userId: string,
  id: string,
  baseUrl: string,
): Promise<TusUploadInfo> {
  const session = await findSession(ctx, userId, id);
  if (session) {
    assertNotExpired(ctx, session);
    return infoOf(session, null);
  }
  const finished = await findFinished(ctx, userId, id, baseUrl);
  if (!finished) throw notFound(id);
  const { size, createdAt, file } = finished;
  return { id, offset: size, length: size, createdAt, uploadMetadata: null, file };
}

export interface TusPatchInput {
  user: Pick<UserRow, 'id'>;
  id: string;
  /** Upload-Offset: must be the recorded offset (409 otherwise). */
  offset: number;
  /** The PATCH body, already held to what the upload can take; it may end early (the client went away). */
  body: Readable;
  checksum: TusChecksum | null;
  /** Base of the file's links, for the answer to the last PATCH. */
  baseUrl: string;
}

/**
 * Appends a PATCH's bytes. Before a byte is stored: the upload must be open at `offset` (409), still fit the size
 * limit (5001) and what is left of the quota (5002; quota taken meanwhile by other uploads counts). The bytes are
 * made durable, then the new offset is recorded with a conditional UPDATE (of two instances racing, one wins; the
 * other answers 409). With the last byte the file is published and recorded before this returns.
 */
export async function appendToTusUpload(ctx: AppContext, input: TusPatchInput): Promise<TusUploadInfo> {
  const session = await findSession(ctx, input.user.id, input.id);
  if (!session) {
    input.body.resume();
    const finished = await findFinished(ctx, input.user.id, input.id, input.baseUrl);
    if (finished && input.offset === finished.size) {
      const { size, createdAt, file } = finished;
      return { id: input.id, offset: size, length: size, createdAt, uploadMetadata: null, file };
    }
    throw notFound(input.id);
  }
  if (session.state !== 'open') {
    input.body.resume();
    throw new ApiError(9000, 'the upload is being completed', { status: 423 });
  }
  try {
    assertNotExpired(ctx, session);
  } catch (err) {
    input.body.resume();
    throw err;
  }
  if (input.offset !== session.received) {
    input.body.resume();
    throw new ApiError(9000, `Upload-Offset must be ${session.received}, the bytes received so far`, { status: 409 });
  }
  try {
    await assertWholeFileFits(ctx, session.user_id, session.total_size);
  } catch (err) {
    input.body.resume();
    throw err;
  }

  const before = JSON.parse(session.append_state) as AppendState;
  const state = await appendVerified(ctx, before, input.body, {
    checksum: input.checksum,
    room: session.total_size - session.received,
  });
  const now = ctx.clock.now();
  const moved = await recordTusProgress(ctx.db, session, {
    received: state.size,
    append_state: JSON.stringify(state),
    chunks: session.chunks + (state.size > before.size ? 1 : 0),
    instance_id: ctx.instanceId,
    updated_at: now,
  });
  if (Number(moved.numUpdatedRows) !== 1) {
    throw new ApiError(9000, 'another request moved this upload on meanwhile: ask for its offset again', {
      status: 409,
    });
  }
  const current: UploadSessionRow = {
    ...session,
    received: state.size,
    append_state: JSON.stringify(state),
    chunks: session.chunks + (state.size > before.size ? 1 : 0),
    updated_at: now,
  };
  if (state.size < session.total_size) return infoOf(current, null);
  return { ...infoOf(current, null), file: await finishTusUpload(ctx, current, state) };
}

/**
 * All bytes are in: reserves the served name (the incomplete file gets the upload's id, so that HEAD finds the file
 * afterwards) and assembles at once. A failure (a name taken meanwhile, the quota used up at the last moment) ends
 * the upload and is thrown.
 */
async function finishTusUpload(
  ctx: AppContext,
  session: UploadSessionRow,
  state: AppendState,
): Promise<TusFinishedFile> {
  // The session's chunk count already includes the last PATCH.
  await reserveFile(ctx, session, state, { from: 'open', incompleteId: session.id, chunks: session.chunks });
  const outcome = await assembleUpload(ctx, session.id);
  if (outcome && 'error' in outcome) throw outcome.error;
  // The links of the creation request (its x-service-domain, if any).
  const finished = await findFinished(ctx, session.user_id, session.id, session.base_url);
  if (!finished) throw new Error(`tus upload ${session.id} was assembled but its file is not recorded`);
  return finished.file;
}

/** DELETE (termination): removes an unfinished upload and its bytes. A finished one is a file now: 9000. */
export async function terminateTusUpload(ctx: AppContext, userId: string, id: string): Promise<void> {
  const session = await findSession(ctx, userId, id);
  if (!session) {
    const finished = await ctx.db
      .selectFrom('incomplete_files')
      .select('id')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('status', '=', 'COMPLETE')
      .executeTakeFirst();
    if (finished) throw new ApiError(9000, 'the upload is finished: delete its file instead');
    throw notFound(id);
  }
  if (session.state !== 'open' || !(await discardSession(ctx, session))) {
    throw new ApiError(9000, 'the upload is being written to or completed', { status: 423 });
  }
}

/** Reads an Upload-Checksum header (`<algorithm> <base64 digest>`): unknown algorithm or malformed -> 9000 (400). */
export function parseTusChecksum(header: string | undefined): TusChecksum | null {
  if (header === undefined) return null;
  const match = /^([a-z0-9-]+) ([A-Za-z0-9+/]+={0,2})$/.exec(header.trim());
  if (!match) throw new ApiError(9000, 'Upload-Checksum must be "<algorithm> <base64 digest>"');
  const algorithm = match[1] as TusChecksumAlgorithm;
  if (!(TUS_CHECKSUM_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new ApiError(9000, `Upload-Checksum algorithm ${algorithm} is not supported (${TUS_CHECKSUM_ALGORITHMS})`);
  }
  const digest = Buffer.from(match[2]!, 'base64');
  const expected = createHash(algorithm).digest().length;
  if (digest.length !== expected)
    throw new ApiError(9000, `Upload-Checksum: a ${algorithm} digest has ${expected} bytes`);
  return { algorithm, digest };
}

/** Thrown by ChecksumCheck at the end of a body whose digest is not the announced one. */
class ChecksumMismatchError extends Error {
  constructor(algorithm: string) {
    super(`the body's ${algorithm} digest is not the one in Upload-Checksum: its bytes were discarded`);
    this.name = 'ChecksumMismatchError';
  }
}

/** Passes the body through and fails at its end (before the append is counted) when its digest does not match. */
class ChecksumCheck extends Transform {
  private readonly hash: Hash;

  constructor(private readonly checksum: TusChecksum) {
    super();
    this.hash = createHash(checksum.algorithm);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    const ok = this.hash.digest().equals(this.checksum.digest);
    callback(ok ? null : new ChecksumMismatchError(this.checksum.algorithm));
  }
}

/**
 * Appends the body durably. A body that ends early is kept as far as it came; one whose checksum does not match is
 * rolled back by the datasource (460: nothing of it counts).
 */
async function appendVerified(
  ctx: AppContext,
  state: AppendState,
  body: Readable,
  { checksum, room }: { checksum: TusChecksum | null; room: number },
): Promise<AppendState> {
  // Bytes past Upload-Length fail the PATCH (413) and none of it is kept.
  const limit = new ByteLimit(room);
  pipeline(body, limit, () => undefined);
  let source: Readable = limit;
  if (checksum) {
    const check = new ChecksumCheck(checksum);
    pipeline(limit, check, () => undefined);
    source = check;
  }
  try {
    return await ctx.storage.append(state, source, { durable: true });
  } catch (err) {
    source.destroy();
    if (err instanceof ChecksumMismatchError) throw new ApiError(9000, err.message, { status: 460 });
    if (err instanceof ByteLimitExceededError || limit.bytes > room) {
      throw new ApiError(9000, `the body holds more than the ${room} bytes left of Upload-Length`, { status: 413 });
    }
    throw err;
  }
}
