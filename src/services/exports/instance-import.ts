// POST /api/server/import (and Zipline's /api/server/import/v4): takes an instance export in Zipline v4's format,
// Zipline's own or Chute's (schemas/zipline-export.ts), and makes its users, quotas, sign-in providers, passkeys,
// folders, files' records, tags, short URLs and invites. All in one transaction: an import that fails part-way leaves
// nothing behind. Records that clash with what is already here (a taken username, file name, short code ...) are
// left out and listed with why, as Zipline does; the rest keep their ids where these are free.
//
// Files keep their storage key: Zipline stores a file's bytes under its name, Chute under the storageKey its export
// names. So the admin copies Zipline's uploads folder into UPLOADS_DIR (or its bucket's objects into Chute's bucket)
// as it is, and /raw/<name> serves them. The usage counters follow through the triggers on files and urls
// (db/schema/usage-counters.ts).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import { indexNewFiles } from '../../db/schema/search-index.js';
import type { Db, FileRow, NewFolder, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { newId, newSecretToken } from '../../lib/security/ids.js';
import { parseByteSize } from '../../lib/text/sizes.js';
import { withoutExtension } from '../../lib/text/file-names.js';
import { canonicalUsername, usernameKey } from '../../lib/text/usernames.js';
import type { Export4, ImportConfig, ImportResult } from '../../schemas/zipline-export.js';
import { storeDatabaseObjects, isDatabaseKey } from '../../storage/database-objects.js';
import { assertValidKey } from '../../storage/keys.js';
import { insertImportedInvite } from '../accounts/invites.js';
import { insertImportedOAuthProvider } from '../accounts/oauth.js';
import { insertImportedPasskey } from '../accounts/passkeys.js';
import { insertImportedQuota } from '../accounts/quotas.js';
import { insertImportedUsers } from '../accounts/user-records.js';
import { insertImportedFiles } from '../files/records.js';
import { insertImportedUrl } from '../links/short-urls.js';
import { SETTING_DEFINITIONS, storeImportedSettings, type SettingKey } from '../operations/settings.js';
import { insertImportedFolders } from '../organise/folders.js';
import { insertImportedFileTags, insertImportedTag } from '../organise/tags.js';

/** Rows per insert statement and per look-up (within both engines' bound-parameter limits). */
const BATCH = 200;

type Data = Export4['data'];
type Skipped = ImportResult['skipped'];

const millis = (text: string): number => Date.parse(text);
const millisOrNull = (text: string | null | undefined): number | null => (text ? Date.parse(text) : null);

function chunks<T>(items: readonly T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Which of `values` are already in `column` of `table` (looked up in batches). */
async function existing(
  db: Db,
  table: 'users' | 'files' | 'folders' | 'tags' | 'urls' | 'invites' | 'passkeys' | 'oauth_providers' | 'quotas',
  column: string,
  values: Iterable<string>,
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks([...new Set(values)])) {
    if (part.length === 0) continue;
    const rows = (await db
      .selectFrom(table)
      .select(sql.ref<string>(column).as('value'))
      .where(sql.ref(column), 'in', part)
      .execute()) as unknown as Array<{ value: string }>;
    for (const row of rows) found.add(row.value);
  }
  return found;
}

/** Where an exported file's bytes are: Chute's storageKey, or the name (Zipline's datasources store files by name). */
function storageKeyOf(file: Data['files'][number]): string {
  return file.storageKey ?? file.name;
}

/**
 * What the export cannot be imported with at all, found before anything is written: 1000 naming the records (a file
 * whose storage key no datasource accepts, a settings value Chute refuses).
 */
function checkExport(ctx: AppContext, exp: Export4, config: ImportConfig): Record<string, unknown> {
  const problems: string[] = [];
  for (const file of exp.data.files) {
    try {
      assertValidKey(storageKeyOf(file));
    } catch (err) {
      problems.push(`files[${file.id}]: ${(err as Error).message}`);
    }
  }
  const settings: Record<string, unknown> = {};
  if (config.settings && exp.chute && exp.data.settings) {
    const locked = new Set(ctx.settings.lockedKeys());
    for (const [key, value] of Object.entries(exp.data.settings)) {
      if (!(key in SETTING_DEFINITIONS) || locked.has(key as SettingKey)) continue;
      const parsed = SETTING_DEFINITIONS[key as SettingKey].schema.safeParse(value);
      if (parsed.success) settings[key] = parsed.data;
      else problems.push(`settings.${key}: ${parsed.error.issues.map((i) => i.message).join(', ')}`);
    }
  }
  if (problems.length > 0) {
    throw new ApiError(1000, `the export cannot be imported: ${problems.slice(0, 5).join('; ')}`, {
      extra: { issues: problems },
    });
  }
  return settings;
}

/** Imports `exp` as `actor` (a SUPERADMIN); see the module comment. */
export async function importServerExport(
  ctx: AppContext,
  actor: Pick<UserRow, 'id'>,
  exp: Export4,
  config: ImportConfig = {},
): Promise<ImportResult> {
  const settings = checkExport(ctx, exp, config);
  let result: ImportResult;
  try {
    result = await ctx.db.transaction().execute(async (trx) => {
      const run = new ImportRun(ctx, trx, actor, config);
      return run.all(exp, settings);
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    ctx.log.error({ err }, 'an import failed; nothing was changed');
    throw new ApiError(9000, `the import failed and nothing was changed: ${(err as Error).message}`, { cause: err });
  }
  if (result.settings) await ctx.settings.refresh();
  return result;
}

class ImportRun {
  readonly skipped: Skipped = [];
  readonly users = new Map<string, string>();
  readonly folders = new Map<string, string>();
  readonly files = new Map<string, string>();
  readonly counts: ImportResult['imported'] = {
    users: 0,
    oauthProviders: 0,
    quotas: 0,
    passkeys: 0,
    folders: 0,
    files: 0,
    tags: 0,
    urls: 0,
    invites: 0,
    metrics: 0,
  };
  private readonly now: number;

  constructor(
    private readonly ctx: AppContext,
    private readonly db: Db,
    private readonly actor: Pick<UserRow, 'id'>,
    private readonly config: ImportConfig,
  ) {
    this.now = ctx.clock.now();
  }

  skip(kind: string, id: string, reason: string): void {
    this.skipped.push({ kind, id, reason });
  }

  /** A fresh id when the exported one is taken (or already used by this import). */
  async ids(table: 'folders' | 'files' | 'tags' | 'urls' | 'invites', wanted: string[]): Promise<string[]> {
    const taken = await existing(this.db, table, 'id', wanted);
    const used = new Set<string>();
    return wanted.map((id) => {
      const free = !taken.has(id) && !used.has(id);
      const chosen = free ? id : newId();
      used.add(chosen);
      return chosen;
    });
  }

  async all(exp: Export4, settings: Record<string, unknown>): Promise<ImportResult> {
    const { data } = exp;
    await this.importUsers(data.users);
    await this.importQuotas(data.userQuotas);
    await this.importOAuthProviders(data.userOauthProviders);
    await this.importPasskeys(data.userPasskeys);
    await this.importFolders(data.folders);
    await this.importFiles(data.files, exp.chute !== undefined);
    await this.importTags(data.userTags);
    await this.importUrls(data.urls);
    await this.importInvites(data.invites);
    for (const metric of data.metrics) this.skip('metric', metric.id, 'Chute keeps no metrics records');
    const tookSettings = Object.keys(settings).length > 0;
    if (tookSettings) await storeImportedSettings(this.db, settings, this.now);
    return { imported: this.counts, skipped: this.skipped, settings: tookSettings };
  }

  async importUsers(users: Data['users']): Promise<void> {
    const keys = new Map<string, string>();
    for (const user of users) {
      try {
        keys.set(user.id, usernameKey(canonicalUsername(user.username)));
      } catch {
        // refused below
      }
    }
    const takenKeys = await existing(this.db, 'users', 'username_key', keys.values());
    const takenIds = await existing(
      this.db,
      'users',
      'id',
      users.map((u) => u.id),
    );
    const rows: UserRow[] = [];
    for (const user of users) {
      if (this.config.mergeCurrentUser && user.id === this.config.mergeCurrentUser) {
        this.users.set(user.id, this.actor.id);
        this.counts.users++;
        continue;
      }
      const key = keys.get(user.id);
      if (key === undefined) {
        this.skip('user', user.id, `the username ${JSON.stringify(user.username)} is not one Chute accepts`);
        continue;
      }
      if (takenKeys.has(key) || takenIds.has(user.id)) {
        this.skip('user', user.id, `a user named ${user.username} (or with this id) exists already`);
        continue;
      }
      takenKeys.add(key);
      takenIds.add(user.id);
      const token = newSecretToken();
      const createdAt = millis(user.createdAt);
      rows.push({
        id: user.id,
        username: canonicalUsername(user.username),
        username_key: key,
        password: user.password ?? null,
        avatar: user.avatar ?? null,
        role: user.role,
        view: JSON.stringify(user.view),
        token_hash: this.ctx.secrets.hash(token),
        token_enc: this.ctx.secrets.encrypt(token),
        totp_secret: user.totpSecret ? this.ctx.secrets.encrypt(user.totpSecret) : null,
        totp_last_step: null,
        created_at: createdAt,
        updated_at: createdAt,
      });
      this.users.set(user.id, user.id);
    }
    for (const part of chunks(rows)) {
      await insertImportedUsers(this.db, part);
      await nextTurn();
    }
    this.counts.users += rows.length;
  }

  /** The new owner of an exported record, or undefined (and the record skipped) when its user was not imported. */
  owner(kind: string, id: string, userId: string | null | undefined): string | undefined {
    const mapped = userId ? this.users.get(userId) : undefined;
    if (mapped === undefined) this.skip(kind, id, `its user ${userId ?? '(none)'} was not imported`);
    return mapped;
  }

  async importQuotas(quotas: Data['userQuotas']): Promise<void> {
    const owners = new Map(quotas.map((q) => [q.id, q.userId ? this.users.get(q.userId) : undefined]));
    const taken = await existing(
      this.db,
      'quotas',
      'user_id',
      [...owners.values()].filter((v): v is string => v !== undefined),
    );
    for (const quota of quotas) {
      const userId = this.owner('quota', quota.id, quota.userId);
      if (userId === undefined) continue;
      if (taken.has(userId)) {
        this.skip('quota', quota.id, 'the user has a quota already');
        continue;
      }
      taken.add(userId);
      const maxBytes = quota.maxBytes == null ? null : parseByteSize(quota.maxBytes);
      const createdAt = millis(quota.createdAt);
      await insertImportedQuota(this.db, {
        id: newId(),
        user_id: userId,
        files_quota: quota.filesQuota,
        max_bytes: maxBytes,
        max_files: quota.maxFiles ?? null,
        max_urls: quota.maxUrls ?? null,
        created_at: createdAt,
        updated_at: createdAt,
      });
      this.counts.quotas++;
    }
  }

  async importOAuthProviders(providers: Data['userOauthProviders']): Promise<void> {
    for (const provider of providers) {
      const userId = this.owner('oauthProvider', provider.id, provider.userId);
      if (userId === undefined) continue;
      if (provider.oauthId) {
        const clash = await this.db
          .selectFrom('oauth_providers')
          .select('id')
          .where('provider', '=', provider.provider)
          .where('oauth_id', '=', provider.oauthId)
          .executeTakeFirst();
        if (clash) {
          this.skip('oauthProvider', provider.id, 'this sign-in account is linked to a user already');
          continue;
        }
      }
      const createdAt = millis(provider.createdAt);
      await insertImportedOAuthProvider(this.db, {
        id: newId(),
        user_id: userId,
        provider: provider.provider,
        username: provider.username,
        oauth_id: provider.oauthId ?? null,
        access_token: provider.accessToken || null,
        refresh_token: provider.refreshToken ?? null,
        created_at: createdAt,
        updated_at: createdAt,
      });
      this.counts.oauthProviders++;
    }
  }

  async importPasskeys(passkeys: Data['userPasskeys']): Promise<void> {
    const credentialOf = (reg: Record<string, unknown>): string | null => {
      const webauthn = reg.webauthn as { id?: unknown } | undefined;
      return typeof webauthn?.id === 'string' ? webauthn.id : null;
    };
    const taken = await existing(
      this.db,
      'passkeys',
      'credential_id',
      passkeys.map((p) => credentialOf(p.reg)).filter((c): c is string => c !== null),
    );
    for (const passkey of passkeys) {
      const userId = this.owner('passkey', passkey.id, passkey.userId);
      if (userId === undefined) continue;
      const credential = credentialOf(passkey.reg);
      if (credential !== null && taken.has(credential)) {
        this.skip('passkey', passkey.id, 'this passkey is registered already');
        continue;
      }
      if (credential !== null) taken.add(credential);
      const createdAt = millis(passkey.createdAt);
      await insertImportedPasskey(this.db, {
        id: newId(),
        user_id: userId,
        name: passkey.name,
        reg: JSON.stringify(passkey.reg),
        credential_id: credential,
        last_used: millisOrNull(passkey.lastUsed),
        created_at: createdAt,
        updated_at: createdAt,
      });
      this.counts.passkeys++;
    }
  }

  async importFolders(folders: Data['folders']): Promise<void> {
    // Parents before their children: a folder whose parent is not in the export (or not imported) goes to the top.
    const byId = new Map(folders.map((f) => [f.id, f]));
    const ordered: Data['folders'] = [];
    const placed = new Set<string>();
    const place = (folder: Data['folders'][number], depth: number) => {
      if (placed.has(folder.id)) return;
      placed.add(folder.id);
      const parent = folder.parentId ? byId.get(folder.parentId) : undefined;
      if (parent && depth < 256) place(parent, depth + 1);
      ordered.push(folder);
    };
    for (const folder of folders) place(folder, 0);

    const wanted = ordered.map((f) => f.id);
    const ids = await this.ids('folders', wanted);
    const rows: NewFolder[] = [];
    const made = new Map<string, NewFolder>();
    ordered.forEach((folder, i) => {
      const userId = this.owner('folder', folder.id, folder.userId);
      if (userId === undefined) return;
      const parentId = folder.parentId ? this.folders.get(folder.parentId) : undefined;
      const parentRow = parentId ? made.get(parentId) : undefined;
      const createdAt = millis(folder.createdAt);
      const id = ids[i]!;
      this.folders.set(folder.id, id);
      const row: NewFolder = {
        id,
        user_id: userId,
        // A parent of another owner cannot hold it (merged accounts): it goes to the top.
        parent_id: parentRow && parentRow.user_id === userId ? parentRow.id : null,
        name: folder.name,
        public: folder.public ? 1 : 0,
        allow_uploads: folder.allowUploads ? 1 : 0,
        created_at: createdAt,
        updated_at: createdAt,
      };
      made.set(id, row);
      rows.push(row);
    });
    for (const part of chunks(rows)) {
      await insertImportedFolders(this.db, part);
      await nextTurn();
    }
    this.counts.folders += rows.length;
  }

  async importFiles(files: Data['files'], fromChute: boolean): Promise<void> {
    const folderOf = new Map<string, string>();
    // Zipline lists a folder's files on the folder too; the file's own folderId wins.
    const ids = await this.ids(
      'files',
      files.map((f) => f.id),
    );
    // Every name a file is served under, its name or its link's extensionless name (services/files/link-names.ts),
    // means one file: here, and in the instance already. A name wins over a short link's name.
    const exportedNames = new Set(files.map((f) => f.name));
    const servedNames = files.flatMap((f) => [f.name, ...(f.extensionlessName ? [f.extensionlessName] : [])]);
    const takenNames = new Set([
      ...(await existing(this.db, 'files', 'name', servedNames)),
      ...(await existing(this.db, 'files', 'extensionless_name', servedNames)),
    ]);
    const takenKeys = await existing(this.db, 'files', 'storage_key', files.map(storageKeyOf));
    const rows: FileRow[] = [];
    // The bytes of small files that the exporting Chute kept in its database, by key (storage/database-objects.ts).
    const storedBytes = new Map<string, Buffer>();
    files.forEach((file, i) => {
      let userId: string | null = null;
      if (file.userId !== null) {
        const mapped = this.owner('file', file.id, file.userId);
        if (mapped === undefined) return;
        userId = mapped;
      }
      const key = storageKeyOf(file);
      if (takenNames.has(file.name)) {
        this.skip('file', file.id, `a file named ${file.name} (or linked so) exists already`);
        return;
      }
      if (takenKeys.has(key)) {
        this.skip('file', file.id, `another file's bytes are stored under ${key}`);
        return;
      }
      // A short link whose name another file has is dropped: the file keeps its link with the extension.
      const extensionlessName =
        fromChute &&
        file.extensionlessName &&
        file.extensionlessName === withoutExtension(file.name) &&
        !takenNames.has(file.extensionlessName) &&
        !exportedNames.has(file.extensionlessName)
          ? file.extensionlessName
          : null;
      takenNames.add(file.name);
      if (extensionlessName !== null) takenNames.add(extensionlessName);
      takenKeys.add(key);
      if (file.storedBytes !== undefined && isDatabaseKey(key))
        storedBytes.set(key, Buffer.from(file.storedBytes, 'base64'));
      const folderId = file.folderId ? this.folders.get(file.folderId) : undefined;
      if (folderId) folderOf.set(file.id, folderId);
      const createdAt = millis(file.createdAt);
      const id = ids[i]!;
      this.files.set(file.id, id);
      rows.push({
        id,
        name: file.name,
        original_name: file.originalName ?? null,
        type: file.type,
        size: file.size,
        views: Math.max(0, file.views),
        max_views: file.maxViews ?? null,
        favorite: file.favorite ? 1 : 0,
        password: file.password ?? null,
        deletes_at: millisOrNull(file.deletesAt),
        folder_id: folderId ?? null,
        user_id: userId,
        storage_key: key,
        private: file.private ? 1 : 0,
        // Zipline's thumbnails are its own (JPEG, other names): POST /api/server/thumbnails makes Chute's.
        thumbnail_key: fromChute ? (file.thumbnailKey ?? null) : null,
        extensionless_name: extensionlessName,
        created_at: createdAt,
        updated_at: createdAt,
      });
    });
    // A folder of another owner than the file's (merged accounts) does not hold it.
    const folderOwners = new Map<string, string>();
    for (const part of chunks([...new Set(rows.map((r) => r.folder_id).filter((f): f is string => f !== null))])) {
      const found = await this.db.selectFrom('folders').select(['id', 'user_id']).where('id', 'in', part).execute();
      for (const f of found) folderOwners.set(f.id, f.user_id);
    }
    for (const row of rows) if (row.folder_id && folderOwners.get(row.folder_id) !== row.user_id) row.folder_id = null;
    for (const part of chunks(rows)) {
      await insertImportedFiles(this.db, part);
      const objects = part.flatMap((row) => {
        const bytes = storedBytes.get(row.storage_key);
        return bytes === undefined ? [] : [{ storage_key: row.storage_key, bytes, created_at: row.created_at }];
      });
      if (objects.length > 0) await storeDatabaseObjects(this.db, objects);
      await indexNewFiles(this.db);
      await nextTurn();
    }
    this.counts.files += rows.length;
  }

  async importTags(tags: Data['userTags']): Promise<void> {
    for (const part of chunks(tags)) {
      const ids = await this.ids(
        'tags',
        part.map((t) => t.id),
      );
      for (const [i, tag] of part.entries()) {
        const userId = this.owner('tag', tag.id, tag.userId);
        if (userId === undefined) continue;
        const clash = await this.db
          .selectFrom('tags')
          .select('id')
          .where('user_id', '=', userId)
          .where('name', '=', tag.name)
          .executeTakeFirst();
        if (clash) {
          this.skip('tag', tag.id, `the user has a tag named ${tag.name} already`);
          continue;
        }
        const createdAt = millis(tag.createdAt);
        const color = tag.color && /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(tag.color) ? tag.color : '#000000';
        const id = ids[i]!;
        await insertImportedTag(this.db, {
          id,
          user_id: userId,
          name: tag.name,
          color,
          created_at: createdAt,
          updated_at: createdAt,
        });
        const fileIds = [...new Set(tag.files.map((f) => this.files.get(f)).filter((f): f is string => !!f))];
        for (const links of chunks(fileIds)) await insertImportedFileTags(this.db, id, links);
        this.counts.tags++;
      }
      await nextTurn();
    }
  }

  async importUrls(urls: Data['urls']): Promise<void> {
    const slugs = urls.flatMap((u) => (u.vanity ? [u.code, u.vanity] : [u.code]));
    const taken = new Set<string>();
    for (const part of chunks([...new Set(slugs)])) {
      const rows = await this.db.selectFrom('url_slugs').select('slug').where('slug', 'in', part).execute();
      for (const row of rows) taken.add(row.slug);
    }
    const ids = await this.ids(
      'urls',
      urls.map((u) => u.id),
    );
    for (const [i, url] of urls.entries()) {
      let userId: string | null = null;
      if (url.userId) {
        const mapped = this.owner('url', url.id, url.userId);
        if (mapped === undefined) continue;
        userId = mapped;
      }
      const vanity = url.vanity && url.vanity !== url.code ? url.vanity : null;
      const clash = [url.code, vanity].find((s) => s !== null && taken.has(s));
      if (clash) {
        this.skip('url', url.id, `the short code ${clash} is taken`);
        continue;
      }
      taken.add(url.code);
      if (vanity) taken.add(vanity);
      const createdAt = millis(url.createdAt);
      const id = ids[i]!;
      // With its slugs: the code, and the vanity when it has one.
      await insertImportedUrl(this.db, {
        id,
        user_id: userId,
        code: url.code,
        vanity,
        destination: url.destination,
        views: Math.max(0, url.views),
        max_views: url.maxViews ?? null,
        password: url.password ?? null,
        enabled: url.enabled ? 1 : 0,
        created_at: createdAt,
        updated_at: createdAt,
      });
      this.counts.urls++;
      if (i % BATCH === BATCH - 1) await nextTurn();
    }
  }

  async importInvites(invites: Data['invites']): Promise<void> {
    const hashes = new Map(invites.map((inv) => [inv.id, this.ctx.secrets.hash(inv.code)]));
    const taken = await existing(this.db, 'invites', 'code_hash', hashes.values());
    const ids = await this.ids(
      'invites',
      invites.map((i) => i.id),
    );
    for (const [i, invite] of invites.entries()) {
      const hash = hashes.get(invite.id)!;
      if (taken.has(hash)) {
        this.skip('invite', invite.id, 'an invite with this code exists already');
        continue;
      }
      taken.add(hash);
      const createdAt = millis(invite.createdAt);
      await insertImportedInvite(this.db, {
        id: ids[i]!,
        code_hash: hash,
        code_enc: this.ctx.secrets.encrypt(invite.code),
        inviter_id: this.users.get(invite.inviterId) ?? null,
        expires_at: millisOrNull(invite.expiresAt),
        max_uses: invite.maxUses ?? null,
        uses: invite.uses,
        created_at: createdAt,
        updated_at: createdAt,
      });
      this.counts.invites++;
    }
  }
}
