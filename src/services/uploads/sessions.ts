// The one writer of `upload_sessions` (test/lint/table-owners.test.ts), the sessions of chunked and tus uploads: each
// move of a session from one state to the next is one conditional UPDATE, so that of two requests racing on a session
// exactly one moves it (the result says whether this one did). Imports only db/.
import type { Db, UploadSessionRow, UploadSessionState } from '../../db/schema/tables.js';

/** A new session's row. */
export function insertUploadSession(db: Db, session: UploadSessionRow) {
  return db.insertInto('upload_sessions').values(session).execute();
}

/**
 * Consumes a chunked session's continuation token: open -> receiving, held by `instanceId` from now on (its temp
 * data, and its assembly after the last chunk). The session as it is now, or undefined when another request took
 * the token first (or it expired).
 */
export function claimChunkToken(
  db: Db,
  session: Pick<UploadSessionRow, 'id' | 'token_hash'>,
  instanceId: string,
  now: number,
) {
  return db
    .updateTable('upload_sessions')
    .set({ token_hash: null, token_expires_at: null, state: 'receiving', instance_id: instanceId, updated_at: now })
    .where('id', '=', session.id)
    .where('token_hash', '=', session.token_hash)
    .where('state', '=', 'open')
    .where('token_expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** A chunk is in: receiving -> open, with the next token's hash and where the upload stands. */
export function reopenForNextChunk(
  db: Db,
  sessionId: string,
  next: Pick<
    UploadSessionRow,
    'token_hash' | 'token_expires_at' | 'append_state' | 'received' | 'chunks' | 'updated_at'
  >,
) {
  return db
    .updateTable('upload_sessions')
    .set({ state: 'open', ...next })
    .where('id', '=', sessionId)
    .where('state', '=', 'receiving')
    .executeTakeFirst();
}

/**
 * The last bytes are in: `from` -> assembling, with the served name (and the extensionless one of a link without the
 * extension) reserved and the incomplete file named.
 */
export function reserveForAssembly(
  db: Db,
  sessionId: string,
  from: UploadSessionState,
  reserved: Pick<
    UploadSessionRow,
    | 'reserved_name'
    | 'reserved_extensionless_name'
    | 'incomplete_file_id'
    | 'append_state'
    | 'received'
    | 'chunks'
    | 'updated_at'
  >,
) {
  return db
    .updateTable('upload_sessions')
    .set({ state: 'assembling', ...reserved })
    .where('id', '=', sessionId)
    .where('state', '=', from)
    .executeTakeFirst();
}

/** A tus PATCH's bytes are durable: the new offset, unless another request moved the upload on meanwhile. */
export function recordTusProgress(
  db: Db,
  session: Pick<UploadSessionRow, 'id' | 'received'>,
  progress: Pick<UploadSessionRow, 'received' | 'append_state' | 'chunks' | 'instance_id' | 'updated_at'>,
) {
  return db
    .updateTable('upload_sessions')
    .set(progress)
    .where('id', '=', session.id)
    .where('state', '=', 'open')
    .where('received', '=', session.received)
    .executeTakeFirst();
}

/** The heartbeat of a busy session (receiving, assembling): its process is alive. */
export function touchBusySession(db: Db, sessionId: string, now: number) {
  return db
    .updateTable('upload_sessions')
    .set({ updated_at: now })
    .where('id', '=', sessionId)
    .where('state', 'in', ['receiving', 'assembling'])
    .execute();
}

/** Removes a session whose assembly ended (recorded or failed). */
export function deleteUploadSession(db: Db, sessionId: string) {
  return db.deleteFrom('upload_sessions').where('id', '=', sessionId).execute();
}

/** Removes a session only if it is still as read (a session another request moved on is left alone). */
export function deleteUploadSessionAsRead(db: Db, session: Pick<UploadSessionRow, 'id' | 'updated_at' | 'state'>) {
  return db
    .deleteFrom('upload_sessions')
    .where('id', '=', session.id)
    .where('updated_at', '=', session.updated_at)
    .where('state', '=', session.state)
    .executeTakeFirst();
}
