// Storing uploaded files. A single request (uploadFiles): each file streams from the request into the datasource
// through a byte counter that cuts it off at the size limit (or the quota). Every kind of upload (single, chunked and
// tus, after their assembly) then ends in finishStoredFiles(), which names the stored objects, checks the quota and
// records them in one transaction. Whatever fails, the bytes stored by the request are removed again.
import type { Readable } from 'node:stream';
import mime from 'mime';
import type { AppContext } from '../../context.js';
import type { Db, FileRow, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { fileLink, linkNameOf, rawLink } from '../../lib/text/links.js';
import { ByteLimit, ByteLimitExceededError } from '../../lib/bytes/byte-limit.js';
import { pipeInto } from '../../lib/bytes/pipe-into.js';
import { toIso } from '../../lib/clock.js';
import {
  candidateName,
  extensionOf,
  sanitizeFileName,
  suffixedName,
  withoutExtension,
  type FileNameFormat,
} from '../../lib/text/file-names.js';
import { newTimeOrderedId } from '../../lib/security/ids.js';
import { mimeEssence } from '../../lib/formats/media-types.js';
import { hashPassword } from '../../lib/security/passwords.js';
import { formatByteSize } from '../../lib/text/sizes.js';
import type { UploadedFileDto, UploadResponse } from '../../schemas/file.js';
import { deleteStoredBytes, folderForFiles } from '../files/manage.js';
import { toFileDto } from '../files/dto.js';
import { insertFileRow } from '../files/records.js';
import { namesNeedCrossCheck, servedNamesTaken } from '../files/link-names.js';
import { clearPendingObjects, markPendingObject } from './pending-objects.js';
import { assertFileQuota, fileQuotaRoom } from '../accounts/quotas.js';
import { storageTempDir } from '../../storage/index.js';
import { insertDatabaseObject, newDatabaseKey } from '../../storage/database-objects.js';
import { collectBytes } from '../../lib/bytes/collect-bytes.js';
import { queueThumbnailJobs } from '../media/thumbnails.js';
import { queueWebhooks, webhooksWanted } from '../operations/webhooks.js';
import {
  putProcessedImage,
  wantsImageProcessing,
  type ImageProcessingOptions,
  type ImageProcessingOutcome,
} from '../media/image-processing.js';

/** The options of an upload (x-service-* headers, read by src/http/uploads/headers.ts). */
export interface UploadOptions {
  /** Epoch ms after which the file is deleted, or null to keep it. The default expiry is already applied. */
  deletesAt: number | null;
  format: FileNameFormat;
  /** Clear-text password to protect the files with (hashed before it is stored). */
  password: string | null;
  maxViews: number | null;
  /** Keep the client's file name as originalName (shown in downloads). */
  keepOriginalName: boolean;
  /** Explicit served name (without the extension); replaces the format. */
  fileName: string | null;
  /** Extension replacing the client's, with its dot. */
  fileExtension: string | null;
  folderId: string | null;
  /** Host (optionally with scheme and port) for the returned links; validated when links are built. */
  domain: string | null;
  /** Answer plain-text links, joined with "," (as Zipline), instead of JSON. */
  noJson: boolean;
  /** Served only to the owner and through share links (x-service-private, or settings.uploadsPrivateByDefault). */
  private: boolean;
  /**
   * The links leave the extension out (/u/abc for abc.png): x-service-extensionless, or
   * settings.filesExtensionlessUrls. The file keeps its name; the short one is noted as its extensionless_name.
   */
  extensionless: boolean;
  /** Metadata removal and compression of images (single-request uploads only). */
  imageProcessing?: ImageProcessingOptions;
}

/** One file part of an upload request, to be read once, in order. */
export interface IncomingFile {
  stream: Readable;
  /** The file name the client sent with the part. */
  fileName: string | undefined;
  /** The Content-Type the client sent with the part. */
  mimeType: string | undefined;
}

/** What the service knows about a file before its bytes arrive. */
export interface IncomingFileDescription {
  /** MIME type (essence only, lower case). */
  type: string;
  /** True when the type was guessed from the extension because the client sent none (or a generic one). */
  assumedType: boolean;
  /** Extension of the served name, with its dot, or ''. */
  extension: string;
  /** The client's file name made safe, or null. */
  clientName: string | null;
}

/** An object already in the datasource, waiting to become a file record. */
export interface StoredObject extends IncomingFileDescription {
  key: string;
  size: number;
  /** The bytes of an object kept in the database, written with its record (storage/database-objects.ts). */
  bytes?: Buffer;
  /** What image processing did (removedGps, compressed), for the answer. */
  processing?: Pick<ImageProcessingOutcome, 'removedGps' | 'compressed'>;
}

const GENERIC_TYPES = new Set(['application/octet-stream', 'binary/octet-stream', 'application/unknown']);

/**
 * Type and extension of an incoming file; a disabled extension (of the client's name or of the served name) -> 1006.
 * Chunked uploads call this when their first chunk arrives.
 */
export function describeIncomingFile(
  ctx: Pick<AppContext, 'settings'>,
  options: Pick<UploadOptions, 'fileExtension'>,
  fileName: string | undefined,
  mimeType: string | undefined,
): IncomingFileDescription {
  const clientName = sanitizeFileName(fileName ?? '') || null;
  const clientExtension = extensionOf(clientName);
  const sent = mimeEssence(mimeType);
  let type: string;
  let assumedType = false;
  if (sent && !GENERIC_TYPES.has(sent)) {
    type = sent;
  } else {
    const guessed = clientName ? mime.getType(clientName) : null;
    type = guessed ?? sent ?? 'application/octet-stream';
    assumedType = guessed !== null || sent === null;
  }
  const guessedExtension = mime.getExtension(type);
  const extension = options.fileExtension ?? (clientExtension || (guessedExtension ? `.${guessedExtension}` : ''));
  const disabled = new Set(ctx.settings.get().filesDisabledExtensions);
  for (const ext of [clientExtension, extension]) {
    if (ext && disabled.has(ext.slice(1))) throw new ApiError(1006, ext);
  }
  return { type, assumedType, extension, clientName };
}

/**
 * A fresh datasource key for a new file's bytes: time-ordered like the file's id (lib/security/ids.ts), so that the unique index
 * of keys and the pending marks grow at their end.
 */
export function newStorageKey(): string {
  return newTimeOrderedId();
}

/** Folder of an upload: must exist (4001) and be the uploader's (3011). */
async function assertUploadFolderIn(trx: Db, userId: string, folderId: string): Promise<void> {
  const folder = await trx
    .selectFrom('folders')
    .select('id')
    .where('id', '=', folderId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!folder) throw new ApiError(4001, folderId);
}

export async function assertUploadFolder(ctx: AppContext, userId: string, folderId: string | null): Promise<void> {
  if (folderId !== null) await folderForFiles(ctx, folderId, [{ user_id: userId }]);
}

interface StreamLimits {
  /** settings.filesMaxFileSize */
  maxFileSize: number;
  /** Bytes left of the byte quota, or null. */
  quotaBytes: number | null;
}

/**
 * Streams one file into the datasource under a new key, cut off as soon as it passes the size limit (5001, Zipline's code) or what is
 * left of the byte quota (5002); the datasource then removes what it had written.
 */
async function storeStream(
  ctx: AppContext,
  body: Readable,
  description: IncomingFileDescription,
  limits: StreamLimits,
  processing: ImageProcessingOptions | undefined,
  inDatabase: boolean,
): Promise<StoredObject> {
  const limit = limits.quotaBytes === null ? limits.maxFileSize : Math.min(limits.maxFileSize, limits.quotaBytes);
  const counter = new ByteLimit(limit);
  // The client's stream is torn down with the counter, so the multipart parser stops reading the request.
  pipeInto(body, counter, () => undefined);
  ctx.metrics.uploadsInFlight.inc();
  if (inDatabase && !wantsImageProcessing(description.type, processing)) {
    // A small request's file: its bytes stay in memory (the request is at most UPLOADS_INLINE_MAX bytes) and go into
    // the database with its record; nothing is written before that, so nothing is pending.
    try {
      const bytes = await collectBytes(counter);
      return { ...description, key: newDatabaseKey(ctx.clock.now()), size: bytes.length, bytes };
    } catch (err) {
      counter.destroy();
      throw uploadStreamError(err, counter, limit, limits);
    } finally {
      ctx.metrics.uploadsInFlight.dec();
      ctx.metrics.uploadedBytes.value += counter.bytes;
    }
  }
  const key = newStorageKey();
  // Until the file is recorded the bytes are pending: a crash before that leaves a mark for the next start. The mark
  // is committed while the bytes are written, and before they become visible under the key (put()'s `ready`).
  const marked = markPendingObject(ctx, key);
  // Handled here too, so that a failure before put() waits for it is not an unhandled rejection.
  marked.catch(() => undefined);
  try {
    if (wantsImageProcessing(description.type, processing)) {
      const { info, outcome } = await putProcessedImage(
        storageTempDir(ctx.config),
        counter,
        description.type,
        processing!,
        (bytes, contentType) => ctx.storage.put(key, bytes, { contentType, ready: marked }),
      );
      const { type = description.type, extension = description.extension, ...said } = outcome;
      return { ...description, type, extension, key, size: info.size, processing: said };
    }
    const info = await ctx.storage.put(key, counter, { contentType: description.type, ready: marked });
    return { ...description, key, size: info.size };
  } catch (err) {
    counter.destroy();
    // put() left nothing behind; the mark goes once it is there (a mark that failed left nothing either).
    await marked.catch(() => undefined);
    await clearPendingObjects(ctx.db, [key]);
    throw uploadStreamError(err, counter, limit, limits);
  } finally {
    ctx.metrics.uploadsInFlight.dec();
    ctx.metrics.uploadedBytes.value += counter.bytes;
  }
}

/** What a failed stream of an upload's file is for the client: past the size limit (5001), the quota (5002), cut off. */
function uploadStreamError(err: unknown, counter: ByteLimit, limit: number, limits: StreamLimits): unknown {
  if (err instanceof ByteLimitExceededError || counter.bytes > limit) {
    if (counter.bytes > limits.maxFileSize)
      return new ApiError(5001, `larger than ${formatByteSize(limits.maxFileSize)}`);
    return new ApiError(5002, `${formatByteSize(limits.quotaBytes ?? 0)} left of the byte quota`);
  }
  if (isClientStreamError(err)) return new ApiError(1061, 'the request ended before the file did', { cause: err });
  return err;
}

/** Whether a stream failed because the client's request ended or broke (not a storage failure). */
export function isClientStreamError(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  const message = (err as { message?: string }).message ?? '';
  return (
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    code === 'ECONNRESET' ||
    code === 'FST_MP_PREMATURE_CLOSE' ||
    message.includes('terminated early') ||
    message.includes('Unexpected end of')
  );
}

export interface UploadInput {
  user: Pick<UserRow, 'id'>;
  options: UploadOptions;
  /** Base of the returned links (publicBaseUrl). */
  baseUrl: string;
  files: AsyncIterable<IncomingFile>;
  /**
   * The request's Content-Length, when it has one: a request of at most UPLOADS_INLINE_MAX bytes keeps its files in
   * the database (storage/database-objects.ts).
   */
  requestBytes?: number | undefined;
}

/** POST /api/upload: stores every file part, then records them all or none. No file part -> 1062. */
export async function uploadFiles(ctx: AppContext, input: UploadInput): Promise<UploadResponse> {
  const { user, options } = input;
  await assertUploadFolder(ctx, user.id, options.folderId);
  const room = await fileQuotaRoom(ctx.db, user.id);
  const maxFileSize = ctx.settings.get().filesMaxFileSize;
  const inDatabase = input.requestBytes !== undefined && input.requestBytes <= ctx.config.UPLOADS_INLINE_MAX;
  const stored: StoredObject[] = [];
  try {
    for await (const file of input.files) {
      const description = describeIncomingFile(ctx, options, file.fileName, file.mimeType);
      if (room.files !== null && stored.length + 1 > room.files) {
        throw new ApiError(5002, `${room.files} file(s) left of the file quota`);
      }
      const usedBytes = stored.reduce((sum, s) => sum + s.size, 0);
      const quotaBytes = room.bytes === null ? null : Math.max(0, room.bytes - usedBytes);
      stored.push(
        await storeStream(
          ctx,
          file.stream,
          description,
          { maxFileSize, quotaBytes },
          options.imageProcessing,
          inDatabase,
        ),
      );
    }
  } catch (err) {
    await deleteStoredObjects(ctx, stored);
    throw err;
  }
  if (stored.length === 0) throw new ApiError(1062);
  return finishStoredFiles(ctx, { user, options, baseUrl: input.baseUrl, objects: stored });
}

async function deleteStoredObjects(
  ctx: AppContext,
  objects: Array<Pick<StoredObject, 'key' | 'bytes'>>,
): Promise<void> {
  // Bytes kept for the database were never written anywhere.
  const written = objects.filter((o) => o.bytes === undefined);
  if (written.length === 0) return;
  await Promise.all(written.map((o) => deleteStoredBytes(ctx, o.key)));
  await clearPendingObjects(
    ctx.db,
    written.map((o) => o.key),
  );
}

export interface FinishInput {
  user: Pick<UserRow, 'id'>;
  options: UploadOptions;
  baseUrl: string;
  /** Objects already in the datasource (e.g. after completeAppend of a chunked upload). */
  objects: StoredObject[];
}

/** Most attempts at a free name before giving up (each retry of the random formats is a fresh random name). */
const NAME_ATTEMPTS = 20;

/** What a new file's served name is made from. */
export interface NameWish {
  options: Pick<UploadOptions, 'fileName' | 'format'>;
  /** Length of the random part (the filesNameLength setting). */
  nameLength: number;
  extension: string;
  clientName: string | null;
  now: number;
  /** A later file of the same request: its explicit name gets a suffix at once. */
  sibling?: boolean;
}

/**
 * Tries served names for a new file until `claim` takes one (returns a value; a name is taken when another file has
 * it, or has its extensionless link's name: services/files/link-names.ts): the format's candidates, each retry a
 * fresh one, or the explicit name (x-service-filename), which when taken is the client's to change (1014), except
 * for the later files of one request, which get a suffix.
 */
export async function claimFreeName<T>(wish: NameWish, claim: (name: string) => Promise<T | undefined>): Promise<T> {
  const { options } = wish;
  for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
    const name = options.fileName
      ? suffixedName(options.fileName, wish.extension, wish.sibling ? attempt + 1 : attempt)
      : candidateName(
          {
            format: options.format,
            length: wish.nameLength,
            extension: wish.extension,
            originalName: wish.clientName,
            now: wish.now,
          },
          attempt,
        );
    const claimed = await claim(name);
    if (claimed !== undefined) return claimed;
    // A taken explicit name: 1009 as Zipline answers it (a rename to a taken name stays 1014, as in Zipline).
    if (options.fileName && !wish.sibling) throw new ApiError(1009, `${name} is taken`);
  }
  throw new Error(`no free file name after ${NAME_ATTEMPTS} attempts`);
}

/**
 * Turns stored objects into files: names them, checks the quota (5002) and inserts the records in one transaction
 * that serialises per user, so that concurrent uploads cannot together go over the quota. On any failure the stored
 * objects are deleted and nothing is recorded. Returns the upload answer.
 */
export async function finishStoredFiles(ctx: AppContext, input: FinishInput): Promise<UploadResponse> {
  const { options } = input;
  try {
    if (input.objects.some((o) => o.size === 0)) assertEmptyFilesTaken(ctx);
    const passwordHash = options.password === null ? null : await hashPassword(options.password);
    const nameLength = ctx.settings.get().filesNameLength;
    // One transaction per request, committed together with those of the concurrent uploads (group commit).
    const rows = await ctx.commits.run(async (trx) => {
      const bytes = input.objects.reduce((sum, o) => sum + o.size, 0);
      await assertFileQuota(ctx, trx, input.user.id, { bytes, files: input.objects.length });
      // Checked again under the owner's lock (taken by the quota check): a folder deleted while the bytes arrived is
      // the upload's 4001, not a foreign-key failure.
      if (options.folderId !== null) await assertUploadFolderIn(trx, input.user.id, options.folderId);
      const inserted: FileRow[] = [];
      for (const object of input.objects) {
        const now = ctx.clock.now();
        if (object.bytes !== undefined) {
          await insertDatabaseObject(trx, ctx.engine, {
            storage_key: object.key,
            bytes: object.bytes,
            created_at: now,
          });
        }
        const row: FileRow = {
          // Time-ordered: the new file lands at the end of every index of the owner's files (lib/security/ids.ts).
          id: newTimeOrderedId(now),
          name: '',
          original_name: options.keepOriginalName ? object.clientName : null,
          type: object.type,
          size: object.size,
          views: 0,
          max_views: options.maxViews,
          favorite: 0,
          password: passwordHash,
          deletes_at: options.deletesAt,
          folder_id: options.folderId,
          user_id: input.user.id,
          storage_key: object.key,
          private: options.private ? 1 : 0,
          thumbnail_key: null,
          extensionless_name: null,
          created_at: now,
          updated_at: now,
        };
        const claimed = await claimFreeName(
          {
            options,
            nameLength,
            extension: object.extension,
            clientName: object.clientName,
            now,
            sibling: inserted.length > 0,
          },
          async (name) => {
            const extensionlessName = options.extensionless ? withoutExtension(name) : null;
            const crossCheck = namesNeedCrossCheck(options, name, extensionlessName);
            if (crossCheck && (await servedNamesTaken(trx, [name, extensionlessName]))) return undefined;
            const result = await insertFileRow(trx, ctx.engine, {
              ...row,
              name,
              extensionless_name: extensionlessName,
            });
            return Number(result.numAffectedRows ?? 0) === 1 ? { name, extensionlessName } : undefined;
          },
        );
        row.name = claimed.name;
        row.extensionless_name = claimed.extensionlessName;
        inserted.push({ ...row });
      }
      // In the same transaction: a recorded file always has its thumbnail job (made after the upload answered) and
      // its webhook deliveries.
      await queueThumbnailJobs(ctx, trx, inserted);
      if (webhooksWanted(ctx, 'upload')) {
        await queueWebhooks(
          ctx,
          trx,
          input.baseUrl,
          input.user.id,
          inserted.map((row) => ({
            event: 'upload' as const,
            file: toFileDto(ctx, input.baseUrl, row),
            links: {
              url: fileLink(ctx.settings.get(), input.baseUrl, linkNameOf(row)),
              raw: rawLink(input.baseUrl, linkNameOf(row)),
            },
          })),
        );
      }
      // Recorded: the bytes are no longer pending (in the same transaction as the records).
      const marked = input.objects.filter((o) => o.bytes === undefined).map((o) => o.key);
      if (marked.length > 0) await clearPendingObjects(trx, marked);
      return inserted;
    });
    return uploadResponse(ctx, input.baseUrl, rows, input.objects);
  } catch (err) {
    await deleteStoredObjects(ctx, input.objects);
    throw err;
  }
}

/** The warning of an upload's answer for a file of 0 bytes (kept: the filesRefuseEmpty setting is off). */
export const EMPTY_FILE_WARNING = 'empty file: it has 0 bytes';

/** With the filesRefuseEmpty setting on, a file of 0 bytes is refused (9000, 400) before anything is recorded. */
export function assertEmptyFilesTaken(ctx: Pick<AppContext, 'settings'>): void {
  if (ctx.settings.get().filesRefuseEmpty) {
    throw new ApiError(9000, `${EMPTY_FILE_WARNING}, and this server refuses empty files`);
  }
}

function uploadResponse(ctx: AppContext, baseUrl: string, rows: FileRow[], objects: StoredObject[]): UploadResponse {
  const files = rows.map((row, i) => ({
    id: row.id,
    ...uploadedFileDto(ctx, baseUrl, {
      name: row.name,
      extensionlessName: row.extensionless_name,
      type: row.type,
      size: row.size,
      originalName: row.original_name,
      deletesAt: row.deletes_at,
    }),
    ...(row.size === 0 ? { warnings: [EMPTY_FILE_WARNING] } : {}),
    ...objects[i]?.processing,
  }));
  return uploadAnswer(
    files,
    objects.map((o) => o.assumedType),
  );
}

/**
 * One file of an upload's answer but its id (the future file of a chunked upload has none yet): its stored name, and
 * links under its extensionless name when it has one.
 */
export function uploadedFileDto(
  ctx: Pick<AppContext, 'settings'>,
  baseUrl: string,
  file: {
    name: string;
    extensionlessName: string | null;
    type: string;
    size: number;
    originalName: string | null;
    deletesAt: number | null;
  },
): Omit<UploadedFileDto, 'id'> {
  const linkName = linkNameOf({ name: file.name, extensionless_name: file.extensionlessName });
  return {
    name: file.name,
    type: file.type,
    size: file.size,
    url: fileLink(ctx.settings.get(), baseUrl, linkName),
    rawUrl: rawLink(baseUrl, linkName),
    originalName: file.originalName,
    deletesAt: file.deletesAt === null ? null : toIso(file.deletesAt),
  };
}

/** An upload's answer: its files, their expiry (that of the first, when it has one), which types were guessed. */
export function uploadAnswer<F extends { deletesAt: string | null }>(
  files: F[],
  assumedMimetypes: boolean[],
): { files: F[]; deletesAt?: string; assumedMimetypes: boolean[] } {
  const deletesAt = files[0]?.deletesAt;
  return { files, ...(deletesAt ? { deletesAt } : {}), assumedMimetypes };
}
