// The instance export for a SUPERADMIN (GET /api/server/export): every record as JSON in Zipline v4's export format
// (schemas/zipline-export.ts), no file bytes, so that an admin can back up the records or move them to another Chute
// (or see them with Zipline's tools). Written as a stream of text: each table is read in pages by id with a short
// pause between pages, so memory stays flat and the server keeps answering however many records there are.
// Chute's own additions (a `chute` block, files' storageKey, private and thumbnailKey, and the bytes of small files kept
// in the database as storedBytes) are keys Zipline's reader ignores; POST /api/server/import reads them back.
import { cpus, hostname, platform, release } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../context.js';
import { sql, type Selectable } from 'kysely';
import type { Database, UserRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { parseView } from '../accounts/dto.js';
import { runningVersion } from '../operations/version.js';
import { isDatabaseKey } from '../../storage/database-objects.js';

/**
 * Rows read, turned into JSON and written at a time: a page of 50 files costs about 0.5 ms of the event loop (0.28 ms
 * its read, 0.2 ms its records and JSON), so a request that arrives meanwhile waits little.
 */
const PAGE = 50;

/**
 * Between two pages the export pauses for a millisecond (a timer), not only for a turn of the event loop: it then takes
 * about a third of a core, and on a small machine the requests served next to it keep their latency. A concurrent
 * redirect's p99 next to an export of 300,000 files (bench/heavy.ts, 2 cores): 1.0x its p99 at rest with the pause,
 * 2.9-3.4x with only a turn between pages of 50, 3.5-4.6x with pages of 100. The price: that export takes 15 s instead
 * of 5 (a million files, about a minute).
 */
const pause = () => sleep(1);
const iso = (ms: number | null): string | null => (ms === null ? null : toIso(ms));

type TableWithId = {
  [T in keyof Database]: Database[T] extends { id: unknown } ? T : never;
}[keyof Database];

/** GET /api/server/export?counts=true: how many records of each kind the export would hold (as Zipline). */
export async function serverExportCounts(ctx: AppContext): Promise<Record<string, number>> {
  const count = async (table: TableWithId) =>
    Number(
      (
        await ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const thumbnails = await ctx.db
    .selectFrom('files')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('thumbnail_key', 'is not', null)
    .executeTakeFirstOrThrow();
  return {
    users: await count('users'),
    files: await count('files'),
    urls: await count('urls'),
    folders: await count('folders'),
    invites: await count('invites'),
    thumbnails: Number(thumbnails.n),
    metrics: 0,
  };
}

/** Rows in pages by id (keyset): `read` gives the PAGE rows after an id; a pause between pages. */
async function* keyset<R extends { id: string }>(read: (after: string) => Promise<R[]>): AsyncGenerator<R[]> {
  for (let after = ''; ;) {
    const page = await read(after);
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1]!.id;
    await pause();
  }
}

/** Every row of `table`, in pages by id. */
function pages<T extends TableWithId>(ctx: AppContext, table: T): AsyncGenerator<Array<Selectable<Database[T]>>> {
  return keyset(
    (after) =>
      ctx.db
        .selectFrom(table as TableWithId)
        .selectAll()
        .where(sql.ref('id'), '>', after)
        .orderBy(sql.ref('id'))
        .limit(PAGE)
        .execute() as unknown as Promise<Array<Selectable<Database[T]> & { id: string }>>,
  );
}

/** The bytes of those of `keys` that are kept in the database, by key. */
async function databaseObjectsOf(ctx: AppContext, keys: string[]): Promise<Map<string, Buffer>> {
  const wanted = keys.filter(isDatabaseKey);
  if (wanted.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('database_objects')
    .select(['storage_key', 'bytes'])
    .where('storage_key', 'in', wanted)
    .execute();
  return new Map(rows.map((r) => [r.storage_key, Buffer.from(r.bytes)]));
}

/**
 * Pages in a row that give no record after which a space (JSON's whitespace) is sent: the pass over a million files
 * for the few with a thumbnail would otherwise send nothing for longer than REQUEST_IDLE_TIMEOUT, which ends the
 * connection (bench/RESULTS.md, 2026-12-02).
 */
const EMPTY_PAGES_BEFORE_SPACE = 20;

/** `"key":[...]` of the records made from each page (a page may give fewer records than rows). */
async function* jsonArray<R>(
  key: string,
  source: AsyncIterable<R[]>,
  toRecords: (page: R[]) => Promise<unknown[]> | unknown[],
): AsyncGenerator<string> {
  yield `,${JSON.stringify(key)}:[`;
  let first = true;
  let empty = 0;
  for await (const page of source) {
    const records = await toRecords(page);
    if (records.length === 0) {
      if (++empty % EMPTY_PAGES_BEFORE_SPACE === 0) yield ' ';
      continue;
    }
    empty = 0;
    yield (first ? '' : ',') + records.map((r) => JSON.stringify(r)).join(',');
    first = false;
  }
  yield ']';
}

/**
 * The ids under each key (a folder's files, a tag's), read by `read` in pages of PAGE rows after the last row of the
 * page before (undefined: the first page), a pause between pages.
 */
async function idsByKey<R extends { id: string }>(
  keys: string[],
  read: (key: string, last: R | undefined) => Promise<R[]>,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const key of keys) {
    const ids: string[] = [];
    for (let last: R | undefined; ;) {
      const page = await read(key, last);
      for (const row of page) ids.push(row.id);
      if (page.length < PAGE) break;
      last = page.at(-1)!;
      await pause();
    }
    if (ids.length > 0) out.set(key, ids);
  }
  return out;
}

/**
 * Checks that the export can be made (no settings record -> 1023) and returns its text as a stream of pieces. The
 * check comes first so that the error can still be answered before any of the body is sent.
 */
export async function serverExport(
  ctx: AppContext,
  actor: Pick<UserRow, 'id' | 'username'>,
): Promise<AsyncGenerator<string>> {
  const settings = await ctx.db.selectFrom('settings').selectAll().where('id', '=', 1).executeTakeFirst();
  if (!settings) throw new ApiError(1023);
  return exportText(ctx, actor, settings);
}

function decryptOrNull(ctx: AppContext, encoded: string | null): string | null {
  if (encoded === null) return null;
  try {
    return ctx.secrets.decrypt(encoded);
  } catch {
    return null; // sealed with another SECRET: of no use elsewhere either
  }
}

async function* exportText(
  ctx: AppContext,
  actor: Pick<UserRow, 'id' | 'username'>,
  settings: { first_setup: number; data: string; updated_at: number },
): AsyncGenerator<string> {
  const { db } = ctx;
  const head = {
    versions: { zipline: `chute-${runningVersion()}`, node: process.version, export: '4' },
    request: {
      user: `${actor.id}:${actor.username}`,
      date: toIso(ctx.clock.now()),
      os: { platform: platform(), arch: process.arch, cpus: cpus().length, hostname: hostname(), release: release() },
      // Zipline puts the process environment here, secrets included; Chute does not.
      env: {},
    },
    chute: { version: runningVersion(), format: 1 },
  };
  const headText = JSON.stringify(head);
  yield headText.slice(0, -1);
  let stored: Record<string, unknown> = {};
  try {
    stored = JSON.parse(settings.data) as Record<string, unknown>;
  } catch {
    // an unreadable record counts as no changes from the defaults
  }
  yield `,"data":{"settings":${JSON.stringify({ ...stored, firstSetup: settings.first_setup === 1, updatedAt: toIso(settings.updated_at) })}`;

  yield* jsonArray('users', pages(ctx, 'users'), (rows) =>
    rows.map((u) => ({
      id: u.id,
      createdAt: toIso(u.created_at),
      username: u.username,
      password: u.password,
      avatar: u.avatar,
      role: u.role,
      view: parseView(u.view),
      totpSecret: decryptOrNull(ctx, u.totp_secret),
    })),
  );
  yield* jsonArray('userPasskeys', pages(ctx, 'passkeys'), (rows) =>
    rows.map((p) => {
      let reg: unknown = {};
      try {
        reg = JSON.parse(p.reg);
      } catch {
        // kept as an empty registration: the passkey cannot be used anyway
      }
      return {
        id: p.id,
        createdAt: toIso(p.created_at),
        lastUsed: iso(p.last_used),
        name: p.name,
        reg,
        userId: p.user_id,
      };
    }),
  );
  yield* jsonArray('userQuotas', pages(ctx, 'quotas'), (rows) =>
    rows
      .filter((q) => q.user_id !== null)
      .map((q) => ({
        id: q.id,
        createdAt: toIso(q.created_at),
        filesQuota: q.files_quota,
        maxBytes: q.max_bytes === null ? null : String(q.max_bytes),
        maxFiles: q.max_files,
        maxUrls: q.max_urls,
        userId: q.user_id,
      })),
  );
  yield* jsonArray('userOauthProviders', pages(ctx, 'oauth_providers'), (rows) =>
    rows.map((o) => ({
      id: o.id,
      createdAt: toIso(o.created_at),
      provider: o.provider,
      username: o.username,
      accessToken: o.access_token ?? '',
      refreshToken: o.refresh_token,
      oauthId: o.oauth_id,
      userId: o.user_id,
    })),
  );
  yield* jsonArray('userTags', pages(ctx, 'tags'), async (rows) => {
    // Tag by tag in pages (file_tags_tag_file), so that a tag on 100,000 files is not one long statement.
    const files = await idsByKey(
      rows.map((t) => t.id),
      (tagId, last) =>
        db
          .selectFrom('file_tags')
          .select('file_id as id')
          .where('tag_id', '=', tagId)
          .where('file_id', '>', last?.id ?? '')
          .orderBy('file_id')
          .limit(PAGE)
          .execute(),
    );
    return rows.map((t) => ({
      id: t.id,
      createdAt: toIso(t.created_at),
      name: t.name,
      color: t.color,
      files: files.get(t.id) ?? [],
      userId: t.user_id,
    }));
  });
  yield* jsonArray('invites', pages(ctx, 'invites'), (rows) =>
    rows.flatMap((i) => {
      const code = decryptOrNull(ctx, i.code_enc) ?? (i.code_hash.startsWith('clear:') ? i.code_hash.slice(6) : null);
      if (code === null) return [];
      return [
        {
          id: i.id,
          createdAt: toIso(i.created_at),
          expiresAt: iso(i.expires_at),
          code,
          uses: i.uses,
          maxUses: i.max_uses,
          // Zipline requires an inviter; an invite whose inviter was deleted is credited to the exporting admin.
          inviterId: i.inviter_id ?? actor.id,
        },
      ];
    }),
  );
  yield* jsonArray('folders', pages(ctx, 'folders'), async (rows) => {
    // Folder by folder in pages of files_folder_created (oldest first), so that a folder of 100,000 files is not one
    // long statement.
    const files = await idsByKey(
      rows.map((f) => f.id),
      (folderId, last: { id: string; created_at: number } | undefined) =>
        db
          .selectFrom('files')
          .select(['id', 'created_at'])
          .where('folder_id', '=', folderId)
          .$if(last !== undefined, (q) =>
            q.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(last!.created_at, last!.id))),
          )
          .orderBy('created_at')
          .orderBy('id')
          .limit(PAGE)
          .execute(),
    );
    return rows.map((f) => ({
      id: f.id,
      createdAt: toIso(f.created_at),
      name: f.name,
      public: f.public === 1,
      allowUploads: f.allow_uploads === 1,
      files: files.get(f.id) ?? [],
      userId: f.user_id,
      parentId: f.parent_id,
    }));
  });
  yield* jsonArray('urls', pages(ctx, 'urls'), (rows) =>
    rows.map((u) => ({
      id: u.id,
      createdAt: toIso(u.created_at),
      code: u.code,
      vanity: u.vanity,
      destination: u.destination,
      views: u.views,
      maxViews: u.max_views,
      password: u.password,
      enabled: u.enabled === 1,
      userId: u.user_id,
    })),
  );
  yield* jsonArray('files', pages(ctx, 'files'), async (rows) => {
    // The bytes of small uploads kept in the database (storage/database-objects.ts) travel with their records: they
    // are in no uploads folder or bucket to copy.
    const inDatabase = await databaseObjectsOf(
      ctx,
      rows.map((f) => f.storage_key),
    );
    return rows.map((f) => ({
      id: f.id,
      createdAt: toIso(f.created_at),
      deletesAt: iso(f.deletes_at),
      name: f.name,
      originalName: f.original_name,
      size: f.size,
      type: f.type,
      views: f.views,
      maxViews: f.max_views,
      favorite: f.favorite === 1,
      password: f.password,
      userId: f.user_id,
      folderId: f.folder_id,
      storageKey: f.storage_key,
      ...(inDatabase.has(f.storage_key) ? { storedBytes: inDatabase.get(f.storage_key)!.toString('base64') } : {}),
      private: f.private === 1,
      thumbnailKey: f.thumbnail_key,
      ...(f.extensionless_name !== null ? { extensionlessName: f.extensionless_name } : {}),
    }));
  });
  // A second pass over the files for the few with a thumbnail: only the three columns it needs (reading whole rows
  // twice was half the export's time).
  const thumbnails = keyset((after) =>
    db
      .selectFrom('files')
      .select(['id', 'thumbnail_key', 'updated_at'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute(),
  );
  yield* jsonArray('thumbnails', thumbnails, (rows) =>
    rows
      .filter((f) => f.thumbnail_key !== null)
      .map((f) => ({ id: f.id, createdAt: toIso(f.updated_at), path: f.thumbnail_key, fileId: f.id })),
  );
  // Chute keeps no metrics records (yet): the list is empty, as with Zipline's ?nometrics.
  yield ',"metrics":[]}}';
}
