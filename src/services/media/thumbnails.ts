// Thumbnails: a small WebP of each image (sharp) and video (a frame about a second in, by ffmpeg), made by a job of
// the queue after every upload and kept in the datasource next to the file (`<storage key>.thumbnail.webp`, removed
// with the file's bytes by deleteStoredBytes). A file that cannot be decoded fails its own job and nothing else.
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../../context.js';
import type { Db, FileRow, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { storageTempDir } from '../../storage/index.js';
import { enqueueJobs, PermanentJobError } from '../operations/jobs.js';
import { ffmpegAvailable, imageThumbnail, MediaToolError, videoFrame } from './decode.js';
import { thumbnailKeyOf } from './thumbnail-names.js';
import { findManagedFile } from '../files/manage.js';
import { setThumbnailKey } from '../files/records.js';
import { ownerNotDeleted } from '../accounts/deleted-owners.js';

export const THUMBNAIL_JOB = 'thumbnail';

/** Image types sharp decodes (SVG is left out: it is drawn, not decoded, and is small anyway). */
const THUMBNAIL_IMAGE_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/heic',
  'image/heif',
  'image/tiff',
]);

type Kind = 'image' | 'video';

function thumbnailKind(type: string): Kind | null {
  if (THUMBNAIL_IMAGE_TYPES.has(type)) return 'image';
  if (type.startsWith('video/')) return 'video';
  return null;
}

let ffmpegMissingLogged = false;

/** Whether video thumbnails can be made here; says so once in the log when they cannot. */
function canMakeVideoThumbnails(ctx: AppContext): boolean {
  if (ffmpegAvailable(ctx.config.FFMPEG_PATH)) return true;
  if (!ffmpegMissingLogged) {
    ffmpegMissingLogged = true;
    ctx.log.warn(
      { ffmpeg: ctx.config.FFMPEG_PATH },
      `ffmpeg does not run at ${ctx.config.FFMPEG_PATH}: video thumbnails are skipped (install ffmpeg or set FFMPEG_PATH)`,
    );
  }
  return false;
}

/**
 * Queues a thumbnail job for each file that can have one, in the caller's transaction (upload: with the file
 * records, so that a recorded file always has its job). Nothing when thumbnails are turned off.
 */
export async function queueThumbnailJobs(
  ctx: AppContext,
  db: Db,
  files: Array<Pick<FileRow, 'id' | 'type'>>,
): Promise<number> {
  if (!ctx.settings.get().thumbnailsEnabled) return 0;
  const wanted = files.filter((f) => thumbnailKind(f.type) !== null);
  await enqueueJobs(
    db,
    ctx.clock.now(),
    wanted.map((f) => ({ kind: THUMBNAIL_JOB, payload: { fileId: f.id } })),
  );
  return wanted.length;
}

/**
 * POST /api/server/thumbnails: queues a job for every image and video without a thumbnail (rerun: for every one),
 * leaving out those that already have a job waiting. 4011 when thumbnails are turned off.
 */
export async function queueMissingThumbnails(ctx: AppContext, rerun: boolean): Promise<number> {
  if (!ctx.settings.get().thumbnailsEnabled) throw new ApiError(4011, 'thumbnailsEnabled is off');
  const pending = new Set(
    (
      await ctx.db
        .selectFrom('jobs')
        .select('payload')
        .where('kind', '=', THUMBNAIL_JOB)
        .where('state', 'in', ['queued', 'running'])
        .execute()
    ).map((j) => (JSON.parse(j.payload) as { fileId: string }).fileId),
  );
  let queued = 0;
  let after = '';
  for (;;) {
    const batch = await ctx.db
      .selectFrom('files')
      .select(['id', 'type'])
      .where('id', '>', after)
      .where((eb) => eb.or([eb('type', 'like', 'image/%'), eb('type', 'like', 'video/%')]))
      .$if(!rerun, (qb) => qb.where('thumbnail_key', 'is', null))
      .orderBy('id')
      .limit(500)
      .execute();
    if (batch.length === 0) return queued;
    after = batch[batch.length - 1]!.id;
    queued += await queueThumbnailJobs(
      ctx,
      ctx.db,
      batch.filter((f) => !pending.has(f.id)),
    );
  }
}

/** The job: makes the thumbnail of one file, stores it next to the file and records it. */
export async function makeThumbnail(ctx: AppContext, payload: unknown, signal: AbortSignal): Promise<void> {
  const fileId = (payload as { fileId?: unknown } | null)?.fileId;
  if (typeof fileId !== 'string') throw new PermanentJobError('the payload names no file');
  const file = await ctx.db
    .selectFrom('files')
    .select(['id', 'type', 'storage_key'])
    .where('id', '=', fileId)
    .executeTakeFirst();
  if (!file) return; // deleted since: nothing to do
  const kind = thumbnailKind(file.type);
  if (kind === null) return;
  if (kind === 'video' && !canMakeVideoThumbnails(ctx)) return;

  // In DATA_DIR/tmp, like every temp file of Chute's (nothing is written outside DATA_DIR).
  const tmp = storageTempDir(ctx.config);
  await mkdir(tmp, { recursive: true });
  const dir = await mkdtemp(path.join(tmp, 'thumbnail-'));
  try {
    const input = path.join(dir, 'input');
    await pipeline(await ctx.storage.get(file.storage_key), createWriteStream(input), { signal });
    let webp: Buffer;
    try {
      webp = await imageThumbnail(kind === 'image' ? input : await videoFrame(ctx.config.FFMPEG_PATH, input, signal));
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      // The file's own bytes are the problem (corrupt, truncated, too many pixels, not what its type says): another
      // attempt would fail the same way.
      const reason = err instanceof MediaToolError ? err.message : `the image could not be read: ${String(err)}`;
      throw new PermanentJobError(reason, { cause: err });
    }
    const key = thumbnailKeyOf(file.storage_key);
    await ctx.storage.put(key, Readable.from([webp]), { contentType: 'image/webp' });
    const updated = await setThumbnailKey(ctx.db, file.id, key);
    // Deleted while the thumbnail was made: its bytes went without this thumbnail, which goes now.
    if (Number(updated.numUpdatedRows) === 0) await ctx.storage.delete(key);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The thumbnail of a file the caller manages (by id or served name; else 4000), or 4000 when it has none (yet). */
export async function openOwnThumbnail(
  ctx: AppContext,
  caller: Pick<UserRow, 'id' | 'role'>,
  idOrName: string,
): Promise<Readable> {
  return openThumbnail(ctx, await findManagedFile(ctx, caller, idOrName));
}

/** The stored thumbnail of a file row, or 4000 when it has none (yet). */
async function openThumbnail(ctx: AppContext, file: Pick<FileRow, 'thumbnail_key'>): Promise<Readable> {
  if (!file.thumbnail_key) throw new ApiError(4000, 'this file has no thumbnail (yet)');
  try {
    return await ctx.storage.get(file.thumbnail_key);
  } catch {
    throw new ApiError(4000, 'the thumbnail is missing from storage');
  }
}

/**
 * The public thumbnail /raw/.thumbnail.<fileId>.webp: only of a file without a password, not private, not expired
 * (else 4000, as if there were none).
 */
export async function openPublicThumbnail(ctx: AppContext, fileId: string): Promise<Readable> {
  const file = await ctx.db
    .selectFrom('files')
    .select(['thumbnail_key', 'password', 'private', 'deletes_at'])
    .where('id', '=', fileId)
    .where(ownerNotDeleted('files.user_id'))
    .executeTakeFirst();
  // A private file's thumbnail is as private as the file: only its owner sees it (through the owner's route).
  if (
    !file ||
    file.password !== null ||
    file.private === 1 ||
    (file.deletes_at !== null && file.deletes_at <= ctx.clock.now())
  ) {
    throw new ApiError(4000);
  }
  return openThumbnail(ctx, file);
}
