// Table types as Kysely sees them. Both engines store the same things the same way so that one query serves both:
// times are epoch milliseconds (bigint, parsed to number), flags are integers 0/1, JSON is text.
import type { ColumnType, Generated, Insertable, Kysely, Selectable, Updateable } from 'kysely';

/** Epoch milliseconds. */
export type Millis = number;
/** 0 or 1. */
export type Flag = number;

export type Role = 'USER' | 'ADMIN' | 'SUPERADMIN';
export type FilesQuotaKind = 'BY_BYTES' | 'BY_FILES';
export type OAuthProviderKind = 'DISCORD' | 'GOOGLE' | 'GITHUB' | 'OIDC';
export type IncompleteFileStatus = 'PENDING' | 'PROCESSING' | 'COMPLETE' | 'FAILED';

export interface UsersTable {
  id: string;
  username: string;
  /**
   * lib/text/usernames.ts's usernameKey(username), unique: the name as a reader sees it, case-folded. Every write of a
   * username sets it; null only in rows written straight into the database (tests).
   */
  username_key: string | null;
  /** argon2id hash; null for accounts that only log in through OAuth. */
  password: string | null;
  avatar: string | null;
  role: Role;
  /** JSON of UserViewSettings. */
  view: string;
  /** Keyed hash (HMAC-SHA256 with SECRET) of the API token, for look-up. */
  token_hash: string;
  /** The API token encrypted with a key derived from SECRET, so that GET /api/user can show it back. */
  token_enc: string;
  /** TOTP secret encrypted with a key derived from SECRET; null when TOTP is off. */
  totp_secret: string | null;
  /** The TOTP time step (epoch seconds / 30) of the last code accepted; a code of this step or earlier is refused. */
  totp_last_step: number | null;
  created_at: Millis;
  updated_at: Millis;
}

export interface SessionsTable {
  /** Public identifier shown in Session.id; not the cookie value. */
  id: string;
  /** Keyed hash of the cookie's secret. */
  secret_hash: string;
  user_id: string;
  ua: string;
  client: string;
  device: string;
  created_at: Millis;
  last_seen_at: Millis;
  expires_at: Millis;
}

/** Stored usage counters (db/schema/usage-counters.ts): per owner ('' ownerless, '*' the instance). */
export interface UsageCountersTable {
  owner: string;
  files: number;
  bytes: number;
  file_views: number;
  favorites: number;
  urls: number;
  url_views: number;
}

/** Files and bytes per owner and media type (db/schema/usage-counters.ts). */
export interface TypeCountersTable {
  owner: string;
  type: string;
  files: number;
  bytes: number;
}

/** The bytes of a small upload, stored with its record (storage/database-objects.ts). */
export interface DatabaseObjectsTable {
  storage_key: string;
  bytes: Buffer;
  created_at: Millis;
}

/** Stored bytes not yet owned by a file record (migration 0018): removed at the next start if still here. */
export interface PendingObjectsTable {
  storage_key: string;
  instance_id: string;
  created_at: Millis;
}

/** A scoped API token (services/accounts/api-tokens.ts): the secret itself is never stored. */
export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  /** The scopes, space-separated (lib/security/token-scopes.ts). */
  scopes: string;
  /** Keyed hash (HMAC-SHA256 with SECRET) of the secret, for look-up. */
  token_hash: string;
  created_at: Millis;
  /** Updated at most once a minute per token, not on every request. */
  last_used_at: Millis | null;
  expires_at: Millis | null;
}

export interface PasskeysTable {
  id: string;
  user_id: string;
  name: string;
  /** JSON registration data: `{webauthn: {id, publicKey, counter, transports, deviceType, backedUp}}`. */
  reg: string;
  /** The credential id (base64url), for finding the passkey an assertion names; null only for imported rows. */
  credential_id: string | null;
  last_used: Millis | null;
  created_at: Millis;
  updated_at: Millis;
}

/** TOTP recovery codes: single-use, stored as keyed hashes. */
export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  code_hash: string;
  created_at: Millis;
}

export type WebauthnPurpose = 'register' | 'login';

/** A WebAuthn challenge handed out with options, consumed by the matching verification. */
export interface WebauthnChallengesTable {
  id: string;
  purpose: WebauthnPurpose;
  /** The user registering; null for logins (the passkey names its user). */
  user_id: string | null;
  challenge: string;
  created_at: Millis;
  expires_at: Millis;
}

export interface OAuthProvidersTable {
  id: string;
  user_id: string;
  provider: OAuthProviderKind;
  username: string;
  oauth_id: string | null;
  access_token: string | null;
  refresh_token: string | null;
  created_at: Millis;
  updated_at: Millis;
}

/** The directory entry an account signs in with (services/directory/ldap-accounts.ts, migration 0039). */
export interface LdapAccountsTable {
  user_id: string;
  /** The entry's entryUUID, objectGUID (hex), ipaUniqueID or nsUniqueId; else its DN, lower-cased. */
  entry_id: string;
  dn: string;
  created_at: Millis;
  updated_at: Millis;
}

export interface QuotasTable {
  id: string;
  user_id: string | null;
  files_quota: FilesQuotaKind;
  max_bytes: number | null;
  max_files: number | null;
  max_urls: number | null;
  created_at: Millis;
  updated_at: Millis;
}

export interface SettingsTable {
  /** Always 1: the one settings record. */
  id: number;
  /** 1 until POST /api/setup has created the first user. */
  first_setup: Flag;
  /** JSON object of the settings an admin changed from their defaults. */
  data: string;
  updated_at: Millis;
}

export interface FoldersTable {
  id: string;
  user_id: string;
  parent_id: string | null;
  name: string;
  public: Flag;
  /** Anonymous visitors may upload into this folder (the files are the owner's). */
  allow_uploads: Flag;
  created_at: Millis;
  updated_at: Millis;
  /** The files in it, kept by triggers (db/schema/list-counters.ts); never written by the code. */
  file_count: ColumnType<number, never, never>;
}

export interface FilesTable {
  id: string;
  /** The served name (unique): /u/<name>. */
  name: string;
  original_name: string | null;
  type: string;
  size: number;
  views: number;
  max_views: number | null;
  favorite: Flag;
  /** argon2id hash of the file's password, or null. */
  password: string | null;
  deletes_at: Millis | null;
  folder_id: string | null;
  user_id: string | null;
  /** Key of the bytes in the datasource. */
  storage_key: string;
  /** 1: served only to its owner and through its share links (file_shares); anyone else gets 404. */
  private: ColumnType<Flag, Flag | undefined, Flag>;
  /** Key of the file's WebP thumbnail in the datasource (services/media/thumbnails.ts), once one was made. */
  thumbnail_key: Generated<string | null>;
  /**
   * The name of the file's link without the extension (abc for abc.png), set when the upload was handed such a link
   * (x-service-extensionless, the filesExtensionlessUrls setting); unique where set (0036). Serving looks it up when
   * no file has the asked name.
   */
  extensionless_name: Generated<string | null>;
  created_at: Millis;
  updated_at: Millis;
}

/** A share link of a file: /s/<id>. */
export interface FileSharesTable {
  /** Random (CSPRNG), the link itself. */
  id: string;
  file_id: string;
  /** argon2id hash of the link's own password, or null. */
  password: string | null;
  max_views: number | null;
  views: number;
  expires_at: Millis | null;
  created_at: Millis;
}

export interface TagsTable {
  id: string;
  user_id: string;
  name: string;
  color: string;
  created_at: Millis;
  updated_at: Millis;
  /** The files carrying it, kept by triggers (db/schema/list-counters.ts); never written by the code. */
  file_count: ColumnType<number, never, never>;
}

export interface FileTagsTable {
  file_id: string;
  tag_id: string;
  /** The file's created_at, set by a trigger on insert (migration 0030): a tag's files in upload order. */
  file_created_at: ColumnType<number | null, never, never>;
}

export interface UrlsTable {
  id: string;
  user_id: string | null;
  code: string;
  vanity: string | null;
  destination: string;
  views: number;
  max_views: number | null;
  password: string | null;
  enabled: Flag;
  created_at: Millis;
  updated_at: Millis;
}

/** The /go/<x> namespace: a URL's code and its vanity, one row each (0003_url_slugs). */
export interface UrlSlugsTable {
  slug: string;
  url_id: string;
  kind: 'code' | 'vanity';
}

export interface InvitesTable {
  id: string;
  /** Keyed hash of the code (Secrets.hash); `clear:<code>` only between migration 0014 and the first start-up. */
  code_hash: string;
  /** The code encrypted (Secrets.encrypt), so that admins can list it; null only before that first start-up. */
  code_enc: string | null;
  inviter_id: string | null;
  expires_at: Millis | null;
  max_uses: number | null;
  uses: number;
  created_at: Millis;
  updated_at: Millis;
}

export interface IncompleteFilesTable {
  id: string;
  user_id: string;
  file_id: string | null;
  status: IncompleteFileStatus;
  chunks_total: number;
  chunks_complete: number;
  /** JSON: name, type, size and whatever the assembler needs. */
  metadata: string;
  created_at: Millis;
  updated_at: Millis;
}

export type UploadSessionState = 'open' | 'receiving' | 'assembling';
export type UploadSessionProtocol = 'chunked' | 'tus';

/** A chunked upload in progress (0005): see src/services/uploads/chunked.ts. */
export interface UploadSessionsTable {
  id: string;
  user_id: string;
  /** Keyed hash of the current continuation token; null while a chunk is received or the file assembled. */
  token_hash: string | null;
  token_expires_at: Millis | null;
  state: UploadSessionState;
  /** The x-service-folder of the first chunk; every later chunk must send the same. */
  folder_id: string | null;
  total_size: number;
  /** Bytes stored so far: where the next chunk must start. */
  received: number;
  chunks: number;
  /** JSON: what the first chunk said about the file (type, extension, client name). */
  file: string;
  /** JSON: the upload options of the first chunk (the password encrypted). */
  options: string;
  base_url: string;
  storage_key: string;
  /** JSON: the datasource's AppendState. */
  append_state: string;
  reserved_name: string | null;
  /** The extensionless name of the reserved name, when the upload's link leaves the extension out (0036). */
  reserved_extensionless_name: string | null;
  incomplete_file_id: string | null;
  /** The instance that received the latest chunk (AppContext.instanceId); null for rows from before 0006. */
  instance_id: string | null;
  /** 'chunked' (POST /api/upload/partial) or 'tus' (POST /api/upload/tus, 0023). */
  protocol: Generated<UploadSessionProtocol>;
  /** tus: the Upload-Metadata header of the creation request, answered again by HEAD. */
  upload_metadata: string | null;
  created_at: Millis;
  updated_at: Millis;
}

export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** One unit of background work (services/operations/jobs.ts). */
export interface JobsTable {
  id: string;
  kind: string;
  /** JSON. */
  payload: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  /** Not claimed before this time (backoff after a failure). */
  run_after: Millis;
  /** The worker running it (instance id and worker number), while running. */
  lease_owner: string | null;
  /** After this time a running job counts as abandoned and is claimed again. */
  lease_expires_at: Millis | null;
  created_at: Millis;
  updated_at: Millis;
}

/** A user's export (migration 0022, services/exports/user-exports.ts). */
export interface ExportsTable {
  id: string;
  user_id: string;
  /** 1 once the zip is stored under storage_key. */
  completed: Flag;
  storage_key: string;
  /** How many files went into the zip. */
  files: number;
  /** Bytes of the zip (0 until completed). */
  size: number;
  created_at: Millis;
  updated_at: Millis;
  /** The sweep removes the export (row and zip) after this time. */
  expires_at: Millis;
}

export interface ServerValuesTable {
  name: string;
  value: string;
}

/** Bytes of deleted file records still to be removed from storage (migration 0027, services/files/blob-deletions.ts). */
export interface BlobDeletionsTable {
  storage_key: string;
  created_at: Millis;
  /** 1: the bytes stay on purpose (a delete with delete_datasourceFiles false), until the admin removes them. */
  kept: Generated<number>;
}

/** A user being deleted: hidden at once, their rows removed in batches (services/files/deletions.ts). */
export interface UserDeletionsTable {
  user_id: string;
  /** 1: their files and short URLs go too; 0: they stay, without an owner. */
  with_content: number;
  created_at: Millis;
}

/** A bulk delete of files in progress (a JSON array of file ids), resumed after a crash (services/files/deletions.ts). */
export interface FileDeletionsTable {
  id: string;
  file_ids: string;
  /** The instance whose request runs it: its next start resumes it (others' after a while). */
  instance_id: string;
  created_at: Millis;
}

export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

/** A snapshot of the instance's statistics (services/statistics/snapshots.ts, migration 0021). */
export interface MetricsTable {
  id: string;
  /** Start of its interval slot (epoch ms); unique, so one snapshot per slot whatever the number of instances. */
  slot: Millis;
  created_at: Millis;
  /** JSON: MetricData. */
  data: string;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  passkeys: PasskeysTable;
  recovery_codes: RecoveryCodesTable;
  webauthn_challenges: WebauthnChallengesTable;
  oauth_providers: OAuthProvidersTable;
  ldap_accounts: LdapAccountsTable;
  quotas: QuotasTable;
  settings: SettingsTable;
  folders: FoldersTable;
  files: FilesTable;
  tags: TagsTable;
  file_tags: FileTagsTable;
  urls: UrlsTable;
  url_slugs: UrlSlugsTable;
  invites: InvitesTable;
  incomplete_files: IncompleteFilesTable;
  upload_sessions: UploadSessionsTable;
  api_tokens: ApiTokensTable;
  usage_counters: UsageCountersTable;
  type_counters: TypeCountersTable;
  file_shares: FileSharesTable;
  jobs: JobsTable;
  pending_objects: PendingObjectsTable;
  database_objects: DatabaseObjectsTable;
  exports: ExportsTable;
  server_values: ServerValuesTable;
  leases: LeasesTable;
  blob_deletions: BlobDeletionsTable;
  user_deletions: UserDeletionsTable;
  file_deletions: FileDeletionsTable;
  metrics: MetricsTable;
}

export type Db = Kysely<Database>;

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type QuotaRow = Selectable<QuotasTable>;
export type FileRow = Selectable<FilesTable>;
export type FolderRow = Selectable<FoldersTable>;
export type TagRow = Selectable<TagsTable>;
export type UrlRow = Selectable<UrlsTable>;
export type InviteRow = Selectable<InvitesTable>;
export type PasskeyRow = Selectable<PasskeysTable>;
export type OAuthProviderRow = Selectable<OAuthProvidersTable>;
export type LdapAccountRow = Selectable<LdapAccountsTable>;
export type IncompleteFileRow = Selectable<IncompleteFilesTable>;
export type UploadSessionRow = Selectable<UploadSessionsTable>;
export type JobRow = Selectable<JobsTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type FileShareRow = Selectable<FileSharesTable>;
export type ExportRow = Selectable<ExportsTable>;
export type NewUser = Insertable<UsersTable>;
/** A folder's or tag's columns as written (their file counts are the triggers'). */
export type NewFolder = Omit<FolderRow, 'file_count'>;
export type NewTag = Omit<TagRow, 'file_count'>;
export type UserUpdate = Updateable<UsersTable>;
// Re-exported so that table files need only this module.
export type { ColumnType, Generated };
