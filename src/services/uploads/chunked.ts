// Chunked uploads (POST /api/upload/partial): one session per file, kept in the database (upload_sessions) so that
// any instance can take the next chunk. Chunks are appended to one datasource upload (a temp file, or an S3
// multipart upload); the last one hands the session to assembleUpload() (services/uploads/assembly.ts), which publishes
// the bytes and records the file in the background while an incomplete_files record reports PENDING -> PROCESSING ->
// COMPLETE | FAILED.
//
// Session states: open (waiting for the next chunk; one valid token) -> receiving (a chunk is streaming in; no valid
// token) -> open | assembling (the last chunk arrived) -> gone. Any failure once a token is consumed discards the
// session and its temp data: the client starts again from byte 0, and nothing partial is ever published.
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/errors.js';
import { unflushedTransaction } from '../../db/commits.js';
import type { UploadSessionRow, UploadSessionState, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { fileLink } from '../../lib/text/links.js';
import { withoutExtension } from '../../lib/text/file-names.js';
import { servedNamesTaken } from '../files/link-names.js';
import { newId, newSecretToken } from '../../lib/security/ids.js';
import { formatByteSize } from '../../lib/text/sizes.js';
import type { FinalChunkResponse } from '../../schemas/chunked-upload.js';
import { StorageNotFoundError, type AppendState } from '../../storage/datasource.js';
import { insertIncompleteFile } from './incomplete-files.js';
import { type IncompleteFileMetadata } from './dto.js';
import { claimChunkToken, insertUploadSession, reopenForNextChunk, reserveForAssembly } from './sessions.js';
import { discardSession, keepSessionAlive, storedFileOf, storedOptionsOf, toStoredOptions } from './assembly.js';
import { fileQuotaRoom } from '../accounts/quotas.js';
import type { UploadOptions } from './store-files.js';
import {
  assertUploadFolder,
  claimFreeName,
  describeIncomingFile,
  isClientStreamError,
  newStorageKey,
  uploadAnswer,
  uploadedFileDto,
} from './store-files.js';

/** A continuation token is valid this long after the answer that carried it. */
export const TOKEN_TTL_MS = 30 * 60_000;

/** Where a chunk sits in the file: Content-Range `bytes start-end/total` and x-service-p-lastchunk. */
export interface ChunkPosition {
  start: number;
  /** Inclusive. */
  end: number;
  total: number;
  lastChunk: boolean;
}

/** The multipart body of a chunk request, read in order. */
export interface ChunkBody {
  /** The stream of the single file part `file` (only its headers are read): 1062 when there is none. */
  filePart(): Promise<Readable>;
  /** Reads what follows the file part: 1005 when another file part does. */
  rest(): Promise<void>;
}

export interface FirstChunkInput {
  user: Pick<UserRow, 'id'>;
  position: ChunkPosition;
  /** The upload options (x-service-*) of the first chunk; they hold for the whole file. */
  options: UploadOptions;
  /** Base of the links in the last chunk's answer. */
  baseUrl: string;
  /** x-service-p-filename and x-service-p-content-type. */
  fileName: string;
  contentType: string;
  body: ChunkBody;
}

export interface NextChunkInput {
  user: Pick<UserRow, 'id'>;
  position: ChunkPosition;
  token: string;
  /** x-service-folder of this request (null when absent): must be the first chunk's. */
  folderId: string | null;
  body: ChunkBody;
  /** The session of `token` when the caller looked it up already (findOpenSession), so that it is read once. */
  session?: UploadSessionRow | undefined;
}

export type ChunkOutcome =
  | { kind: 'partial'; partialToken: string; noJson: boolean }
  | { kind: 'final'; answer: FinalChunkResponse; noJson: boolean; sessionId: string };

const RESTART = 'start the upload again from byte 0 without x-service-p-token';

/** Thrown by ExactLength when a chunk holds more or fewer bytes than its Content-Range says. */
class ChunkLengthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChunkLengthError';
  }
}

/** Passes exactly `expected` bytes through; fails on the first byte too many, or at the end when some are missing. */
class ExactLength extends Transform {
  bytes = 0;
  failure: ChunkLengthError | null = null;

  constructor(private readonly expected: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.expected) {
      callback(this.fail(`the chunk holds more than the ${this.expected} bytes its Content-Range announces`));
      return;
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.bytes < this.expected) {
      callback(this.fail(`the chunk holds ${this.bytes} bytes, its Content-Range announces ${this.expected}`));
      return;
    }
    callback();
  }

  private fail(message: string): ChunkLengthError {
    this.failure = new ChunkLengthError(message);
    return this.failure;
  }
}

/** Whole-file limits (rule 7): the size limit (5001, as Zipline) and what is left of the quota (5002). */
export async function assertWholeFileFits(ctx: AppContext, userId: string, total: number): Promise<void> {
  const maxFileSize = ctx.settings.get().filesMaxFileSize;
  if (total > maxFileSize)
    throw new ApiError(5001, `${formatByteSize(total)} is larger than ${formatByteSize(maxFileSize)}`);
  const room = await fileQuotaRoom(ctx.db, userId);
  if (room.bytes !== null && total > room.bytes) {
    throw new ApiError(5002, `${formatByteSize(room.bytes)} left of the byte quota`);
  }
  if (room.files !== null && room.files < 1) throw new ApiError(5002, 'no files left of the file quota');
}

function newToken(ctx: AppContext, now: number): { token: string; hash: string; expiresAt: number } {
  const token = newSecretToken();
  return { token, hash: ctx.secrets.hash(token), expiresAt: now + TOKEN_TTL_MS };
}

/** The first chunk (no token): checks the whole file against the limits before a byte is stored, opens a session. */
export async function receiveFirstChunk(ctx: AppContext, input: FirstChunkInput): Promise<ChunkOutcome> {
  const { user, position, options } = input;
  if (position.start !== 0) throw new ApiError(1002, 'the first chunk (without x-service-p-token) starts at byte 0');
  await assertUploadFolder(ctx, user.id, options.folderId);
  await assertWholeFileFits(ctx, user.id, position.total);
  const description = describeIncomingFile(ctx, options, input.fileName, input.contentType);
  const stream = await input.body.filePart();

  const key = newStorageKey();
  const appendState = await ctx.storage.beginAppend(key, {
    contentType: description.type,
    chunkSize: position.end - position.start + 1,
    totalSize: position.total,
  });
  const now = ctx.clock.now();
  const stored = toStoredOptions(ctx, options);
  const session: UploadSessionRow = {
    id: newId(),
    user_id: user.id,
    token_hash: null,
    token_expires_at: null,
    // Recorded before the first byte is stored, so that a crash mid-chunk leaves a row that cleanup can find.
    state: 'receiving',
    folder_id: options.folderId,
    total_size: position.total,
    received: 0,
    chunks: 0,
    file: JSON.stringify(description),
    options: JSON.stringify(stored),
    base_url: input.baseUrl,
    storage_key: key,
    append_state: JSON.stringify(appendState),
    reserved_name: null,
    reserved_extensionless_name: null,
    incomplete_file_id: null,
    instance_id: ctx.instanceId,
    protocol: 'chunked',
    upload_metadata: null,
    created_at: now,
    updated_at: now,
  };
  try {
    await ctx.commits.run((trx) => insertUploadSession(trx, session));
  } catch (err) {
    stream.resume();
    await ctx.storage.abortAppend(appendState).catch((e: unknown) => ctx.log.error({ err: e }, 'abortAppend failed'));
    throw err;
  }
  return storeChunk(ctx, session, stream, input);
}

/** The open session that `token` continues, if it is the user's and not used or expired. */
export function findOpenSession(ctx: AppContext, userId: string, token: string): Promise<UploadSessionRow | undefined> {
  return ctx.db
    .selectFrom('upload_sessions')
    .selectAll()
    .where('token_hash', '=', ctx.secrets.hash(token))
    .where('user_id', '=', userId)
    .where('state', '=', 'open')
    .where('token_expires_at', '>', ctx.clock.now())
    .executeTakeFirst();
}

/**
 * A chunk with a token. The rules are checked before the token is consumed (a refused chunk leaves the session as it
 * was); then one conditional UPDATE consumes it, so of two requests racing with one token exactly one goes on.
 */
export async function receiveNextChunk(ctx: AppContext, input: NextChunkInput): Promise<ChunkOutcome> {
  const { position } = input;
  const session = input.session ?? (await findOpenSession(ctx, input.user.id, input.token));
  if (!session) throw new ApiError(1003, `the token is unknown, used, expired or not yours: ${RESTART}`);
  if (position.total !== session.total_size) {
    throw new ApiError(1002, `the total size is ${session.total_size} bytes and cannot change during an upload`);
  }
  if (input.folderId !== session.folder_id) {
    throw new ApiError(1002, 'x-service-folder must be the same for every chunk of an upload');
  }
  if (position.start !== session.received) {
    throw new ApiError(1002, `this chunk must start at byte ${session.received}, right after the previous one`);
  }
  const stream = await input.body.filePart();
  const now = ctx.clock.now();
  // Not waited on to reach the disk (db/commits.ts): what a crash of the machine could lose of it, the session's
  // bytes lose with it, and sessions do not survive a restart anyway. Atomic all the same: one request consumes it.
  const consumed = await unflushedTransaction(ctx.db, (trx) => claimChunkToken(trx, session, ctx.instanceId, now));
  if (!consumed) {
    stream.resume();
    throw new ApiError(1003, `the token was used by another request: ${RESTART}`);
  }
  return storeChunk(ctx, consumed, stream, input);
}

/** Appends the chunk and moves the session on (open with a new token, or assembling); discards it on any failure. */
async function storeChunk(
  ctx: AppContext,
  session: UploadSessionRow,
  stream: Readable,
  input: { position: ChunkPosition; body: ChunkBody },
): Promise<ChunkOutcome> {
  const stop = keepSessionAlive(ctx, session.id);
  try {
    return await receiveInto(ctx, session, stream, input);
  } finally {
    stop();
  }
}

async function receiveInto(
  ctx: AppContext,
  session: UploadSessionRow,
  stream: Readable,
  input: { position: ChunkPosition; body: ChunkBody },
): Promise<ChunkOutcome> {
  const { position } = input;
  let state = JSON.parse(session.append_state) as AppendState;
  const noJson = storedOptionsOf(session).noJson;
  try {
    state = await appendExactly(ctx, state, stream, position.end - position.start + 1);
    await input.body.rest();
    // Limits again now that bytes arrived: the quota may have been used up by other uploads meanwhile.
    await assertWholeFileFits(ctx, session.user_id, session.total_size);
    if (position.lastChunk) {
      const answer = await reserveFile(ctx, session, state);
      return { kind: 'final', answer, noJson, sessionId: session.id };
    }
    const now = ctx.clock.now();
    const next = newToken(ctx, now);
    // Not waited on to reach the disk either (see receiveNextChunk): the last chunk's commit, durable, covers it.
    const moved = await unflushedTransaction(ctx.db, (trx) =>
      reopenForNextChunk(trx, session.id, {
        token_hash: next.hash,
        token_expires_at: next.expiresAt,
        append_state: JSON.stringify(state),
        received: position.end + 1,
        chunks: session.chunks + 1,
        updated_at: now,
      }),
    );
    if (Number(moved.numUpdatedRows) !== 1) throw new ApiError(1003, `the upload was discarded meanwhile: ${RESTART}`);
    return { kind: 'partial', partialToken: next.token, noJson };
  } catch (err) {
    await discardSession(ctx, { ...session, append_state: JSON.stringify(state) });
    throw err;
  }
}

/** Streams the chunk into the upload through a counter that holds it to exactly `length` bytes (1002 otherwise). */
async function appendExactly(
  ctx: AppContext,
  state: AppendState,
  stream: Readable,
  length: number,
): Promise<AppendState> {
  const counter = new ExactLength(length);
  // pipeline() tears the client's stream down with the counter, so the multipart parser stops reading the request.
  pipeline(stream, counter, () => undefined);
  ctx.metrics.uploadsInFlight.inc();
  try {
    const next = await ctx.storage.append(state, counter, { length });
    if (next.size !== state.size + length)
      throw new Error(`appended ${next.size - state.size} bytes instead of ${length}`);
    return next;
  } catch (err) {
    counter.destroy();
    if (counter.failure) throw new ApiError(1002, counter.failure.message);
    if (isClientStreamError(err)) throw new ApiError(1061, 'the request ended before the chunk did', { cause: err });
    if (err instanceof StorageNotFoundError) {
      // The earlier chunks are not where this instance looks for them: instances that take the chunks of one upload
      // must share their uploads folder (or bucket); see docs/operations.md.
      throw new ApiError(
        1003,
        `this instance (${ctx.instanceId}) cannot reach the earlier chunks of this upload: the instances behind this ` +
          `address do not share one storage (UPLOADS_DIR or bucket), so a chunk must come back to the instance that ` +
          `took the first one; ${RESTART}`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    ctx.metrics.uploadsInFlight.dec();
    ctx.metrics.uploadedBytes.value += counter.bytes;
  }
}

/**
 * The last chunk is in: picks the served name (so that the answer carries the future link), reserves it in the
 * session, and records the incomplete file as PENDING, in one transaction. The session must still be in the state
 * `from` ('receiving' for a chunk; 'open' for a tus upload, whose incomplete file takes the upload's id).
 */
export async function reserveFile(
  ctx: AppContext,
  session: UploadSessionRow,
  state: AppendState,
  {
    from = 'receiving',
    incompleteId = newId(),
    chunks = session.chunks + 1,
  }: { from?: UploadSessionState; incompleteId?: string; chunks?: number } = {},
): Promise<FinalChunkResponse> {
  const file = storedFileOf(session);
  const options = storedOptionsOf(session);
  const now = ctx.clock.now();
  const wish = {
    options,
    nameLength: ctx.settings.get().filesNameLength,
    extension: file.extension,
    clientName: file.clientName,
    now,
  };
  return claimFreeName(wish, async (name) => {
    const extensionlessName = options.extensionless ? withoutExtension(name) : null;
    const url = fileLink(ctx.settings.get(), session.base_url, extensionlessName ?? name);
    if (await servedNamesTaken(ctx.db, [name, extensionlessName])) return undefined;
    if (await namesReservedCrosswise(ctx, name, extensionlessName)) return undefined;
    const metadata: IncompleteFileMetadata = { name, type: file.type, size: session.total_size, url };
    try {
      await ctx.db.transaction().execute(async (trx) => {
        const moved = await reserveForAssembly(trx, session.id, from, {
          reserved_name: name,
          reserved_extensionless_name: extensionlessName,
          incomplete_file_id: incompleteId,
          append_state: JSON.stringify(state),
          received: session.total_size,
          chunks,
          updated_at: now,
        });
        if (Number(moved.numUpdatedRows) !== 1)
          throw new ApiError(1003, `the upload was discarded meanwhile: ${RESTART}`);
        await insertIncompleteFile(trx, {
          id: incompleteId,
          user_id: session.user_id,
          file_id: null,
          status: 'PENDING',
          chunks_total: chunks,
          chunks_complete: 0,
          metadata: JSON.stringify(metadata),
          created_at: now,
          updated_at: now,
        });
      });
      return finalAnswer(ctx, session, { name, extensionlessName }, incompleteId);
    } catch (err) {
      if (!isUniqueViolation(err, 'reserved_name') && !isUniqueViolation(err, 'reserved_extensionless_name')) throw err;
      return undefined;
    }
  });
}

/**
 * Whether another upload reserved `name` as its extensionless name, or `extensionlessName` as its name (each column
 * against itself is the unique indexes' to refuse).
 */
async function namesReservedCrosswise(ctx: AppContext, name: string, extensionlessName: string | null) {
  const reserved = await ctx.db
    .selectFrom('upload_sessions')
    .select('id')
    .where((eb) =>
      extensionlessName === null
        ? eb('reserved_extensionless_name', '=', name)
        : eb.or([eb('reserved_extensionless_name', '=', name), eb('reserved_name', '=', extensionlessName)]),
    )
    .limit(1)
    .executeTakeFirst();
  return reserved !== undefined;
}

function finalAnswer(
  ctx: AppContext,
  session: UploadSessionRow,
  { name, extensionlessName }: { name: string; extensionlessName: string | null },
  incompleteId: string,
): FinalChunkResponse {
  const file = storedFileOf(session);
  const options = storedOptionsOf(session);
  const pending = {
    ...uploadedFileDto(ctx, session.base_url, {
      name,
      extensionlessName,
      type: file.type,
      size: session.total_size,
      originalName: options.keepOriginalName ? file.clientName : null,
      deletesAt: options.deletesAt,
    }),
    pending: true as const,
  };
  const { files, ...rest } = uploadAnswer([pending], [file.assumedType]);
  return { files, partialSuccess: false, incompleteFileId: incompleteId, ...rest };
}
