// What happens to a chunked-upload session besides receiving chunks: the background assembly after its last chunk,
// and discarding it with its temp data (after a failed chunk, after 30 idle minutes, at start-up).
import type { AppContext } from '../../context.js';
import type { UploadSessionRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import type { AppendState } from '../../storage/datasource.js';
import { failIncompleteFile, failOrphanedIncompleteFiles, markIncompleteFile } from './incomplete-files.js';
import { deleteUploadSession, deleteUploadSessionAsRead, touchBusySession } from './sessions.js';
import type { UploadOptions } from './store-files.js';
import { finishStoredFiles, type IncomingFileDescription } from './store-files.js';

/** An open session that received nothing for this long is discarded with its temp data. */
export const IDLE_TIMEOUT_MS = 30 * 60_000;
/** A tus upload expires this long after its creation (its Upload-Expires) and is then discarded with its bytes. */
export const TUS_UPLOAD_TTL_MS = 24 * 3_600_000;
/** How often the process holding a busy session (receiving a chunk, assembling) shows that it is alive. */
const BUSY_HEARTBEAT_MS = 15_000;
/**
 * A session still receiving or assembling without a heartbeat for this long belongs to a process that died (kill -9,
 * a lost machine): the idle sweep of any instance discards it and its file becomes FAILED.
 */
export const STALE_BUSY_MS = 2 * 60_000;

/**
 * Keeps a busy session's updated_at fresh while this process works on it, so that the idle sweep can tell it from one
 * whose process died. Returns the function that stops it.
 */
export function keepSessionAlive(ctx: AppContext, sessionId: string): () => void {
  const timer = setInterval(() => {
    touchBusySession(ctx.db, sessionId, ctx.clock.now()).catch((err: unknown) =>
      ctx.log.warn({ err, uploadSession: sessionId }, 'chunked upload heartbeat failed'),
    );
  }, BUSY_HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The options as kept in the session: the password encrypted, never in clear text in the database. */
export type StoredOptions = Omit<UploadOptions, 'password'> & { passwordEnc: string | null };

export function storedFileOf(session: UploadSessionRow): IncomingFileDescription {
  return JSON.parse(session.file) as IncomingFileDescription;
}

export function storedOptionsOf(session: UploadSessionRow): StoredOptions {
  return JSON.parse(session.options) as StoredOptions;
}

/** The options as a session keeps them: the password encrypted with the server's secret. */
export function toStoredOptions(ctx: Pick<AppContext, 'secrets'>, options: UploadOptions): StoredOptions {
  const { password, ...rest } = options;
  return { ...rest, passwordEnc: password === null ? null : ctx.secrets.encrypt(password) };
}

/** How an assembly ended: the recorded file, or why there is none (its incomplete file is then FAILED). */
export type AssemblyOutcome = { fileId: string } | { error: unknown };

/**
 * The assemblies this app started after answering a last chunk: they run in the background, and closing the app
 * waits for them (settle). Any instance can assemble any session: the state is in the database.
 */
export class BackgroundAssemblies {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly ctx: AppContext) {}

  start(sessionId: string): void {
    const run: Promise<void> = assembleUpload(this.ctx, sessionId)
      .then(() => undefined)
      .catch((err: unknown) => this.ctx.log.error({ err, uploadSession: sessionId }, 'chunked upload assembly failed'))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  async settle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}

/**
 * Background assembly of a session whose last chunk was accepted: PENDING -> PROCESSING, publish the appended bytes
 * (a rename or CompleteMultipartUpload, no second copy), record the file under the reserved name -> COMPLETE. Any
 * failure -> FAILED, with the temp data and any published bytes removed (and logged, not thrown).
 */
export async function assembleUpload(ctx: AppContext, sessionId: string): Promise<AssemblyOutcome | undefined> {
  const stop = keepSessionAlive(ctx, sessionId);
  try {
    return await assemble(ctx, sessionId);
  } finally {
    stop();
  }
}

async function assemble(ctx: AppContext, sessionId: string): Promise<AssemblyOutcome | undefined> {
  const session = await ctx.db
    .selectFrom('upload_sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .where('state', '=', 'assembling')
    .executeTakeFirst();
  if (!session?.incomplete_file_id || !session.reserved_name) return undefined;
  const incompleteId = session.incomplete_file_id;
  if (!(await markIncompleteFile(ctx, incompleteId, 'PENDING', { status: 'PROCESSING' }))) return undefined;
  const state = JSON.parse(session.append_state) as AppendState;
  // append: the bytes are still temp data; published: they are under the key; finishing: finishStoredFiles owns them
  // (it removes them when it fails); recorded: the file exists.
  let stage: 'append' | 'published' | 'finishing' | 'recorded' = 'append';
  try {
    const info = await ctx.storage.completeAppend(state);
    stage = 'published';
    if (info.size !== session.total_size)
      throw new Error(`assembled ${info.size} bytes instead of ${session.total_size}`);
    const { passwordEnc, ...options } = storedOptionsOf(session);
    const file = storedFileOf(session);
    stage = 'finishing';
    const result = await finishStoredFiles(ctx, {
      user: { id: session.user_id },
      // The reserved name is passed as an explicit name (with its extension), so the file gets exactly the name the
      // last chunk's answer promised, or fails with 1014 if a normal upload took it meanwhile.
      options: {
        ...options,
        password: passwordEnc === null ? null : ctx.secrets.decrypt(passwordEnc),
        fileName: session.reserved_name,
      },
      baseUrl: session.base_url,
      objects: [{ ...file, extension: '', key: session.storage_key, size: info.size }],
    });
    stage = 'recorded';
    const fileId = result.files[0]!.id;
    await markIncompleteFile(ctx, incompleteId, null, {
      status: 'COMPLETE',
      file_id: fileId,
      chunks_complete: session.chunks,
    });
    return { fileId };
  } catch (err) {
    ctx.log.error({ err, uploadSession: session.id, stage }, 'assembling a chunked upload failed');
    if (stage === 'append')
      await ctx.storage.abortAppend(state).catch((e: unknown) => ctx.log.error({ err: e }, 'abortAppend failed'));
    if (stage === 'published')
      await ctx.storage.delete(session.storage_key).catch((e: unknown) => ctx.log.error({ err: e }, 'delete failed'));
    if (stage !== 'recorded') {
      await failIncompleteFile(
        ctx,
        incompleteId,
        err instanceof ApiError ? err.message : 'the file could not be assembled',
      );
    }
    return { error: err };
  } finally {
    await deleteUploadSession(ctx.db, session.id);
  }
}

/**
 * Removes a session (only if it is still as read: a session another request moved on is left alone) and its temp
 * data; a session that was assembling also loses its published bytes unless a file record already owns them. Its
 * incomplete file becomes FAILED, or COMPLETE when the assembly had recorded the file (a process that died between
 * that commit and the incomplete file's).
 */
export async function discardSession(ctx: AppContext, session: UploadSessionRow): Promise<boolean> {
  const deleted = await deleteUploadSessionAsRead(ctx.db, session);
  if (Number(deleted.numDeletedRows) !== 1) return false;
  const recorded = await releaseSessionData(ctx, session);
  if (session.incomplete_file_id && recorded !== null) {
    await markIncompleteFile(ctx, session.incomplete_file_id, null, {
      status: 'COMPLETE',
      file_id: recorded,
      chunks_complete: session.chunks,
    });
  } else if (session.incomplete_file_id) {
    await failIncompleteFile(ctx, session.incomplete_file_id, 'the upload was interrupted');
  }
  return true;
}

/**
 * Removes the bytes of a session whose row is already gone (discarded, or deleted with its user): its temp data, and
 * for one that was assembling, its published bytes unless a file record already owns them. Returns the id of that
 * file record, or null.
 */
export async function releaseSessionData(ctx: AppContext, session: UploadSessionRow): Promise<string | null> {
  try {
    await ctx.storage.abortAppend(JSON.parse(session.append_state) as AppendState);
  } catch (err) {
    ctx.log.warn({ err, uploadSession: session.id }, 'could not abort the temp data of a chunked upload');
  }
  if (session.state !== 'assembling') return null;
  const owner = await ctx.db
    .selectFrom('files')
    .select('id')
    .where('storage_key', '=', session.storage_key)
    .executeTakeFirst();
  if (!owner) await ctx.storage.delete(session.storage_key);
  return owner?.id ?? null;
}

/**
 * The idle-cleanup job: discards open chunked sessions idle for 30 minutes, tus uploads past their expiry
 * (TUS_UPLOAD_TTL_MS after creation), and busy ones left by a dead process.
 */
export async function discardIdleUploadSessions(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  const rows = await ctx.db
    .selectFrom('upload_sessions')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([
          eb('protocol', '=', 'chunked'),
          eb('state', '=', 'open'),
          eb('updated_at', '<=', now - IDLE_TIMEOUT_MS),
        ]),
        eb.and([eb('protocol', '=', 'tus'), eb('state', '=', 'open'), eb('created_at', '<=', now - TUS_UPLOAD_TTL_MS)]),
        eb.and([eb('state', '!=', 'open'), eb('updated_at', '<=', now - STALE_BUSY_MS)]),
      ]),
    )
    .execute();
  let discarded = 0;
  for (const row of rows) if (await discardSession(ctx, row)) discarded++;
  return discarded;
}

/**
 * At start-up: unfinished sessions do not survive a restart of the instance holding them (the spec's states table).
 * Discards this instance's sessions (and those from before instances were recorded) with their temp data, and turns
 * incomplete files left PENDING or PROCESSING without any session into FAILED. Sessions other instances sharing the
 * database hold are left to them. Call it before accepting requests.
 */
export async function discardUnfinishedUploadSessions(ctx: AppContext): Promise<{ sessions: number; failed: number }> {
  const rows = await ctx.db
    .selectFrom('upload_sessions')
    .selectAll()
    .where((eb) => eb.or([eb('instance_id', '=', ctx.instanceId), eb('instance_id', 'is', null)]))
    // tus uploads survive a restart (their offset is recorded after every PATCH), unless one was being assembled.
    .where((eb) => eb.or([eb('protocol', '=', 'chunked'), eb('state', '=', 'assembling')]))
    .execute();
  let sessions = 0;
  for (const row of rows) if (await discardSession(ctx, row)) sessions++;
  return { sessions, failed: await failOrphanedIncompleteFiles(ctx) };
}
