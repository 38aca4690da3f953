// Zipline v4's instance export (its GET /api/server/export, `versions.export: "4"`): the shape Chute answers on
// GET /api/server/export and takes on POST /api/server/import. Written from Zipline's published format: every record
// of every table as JSON, dates as ISO strings, ids as strings, no file bytes. Objects are loose: Zipline's own
// reader drops keys it does not know, so Chute adds its own (a `chute` block, files' storageKey ...) without breaking
// it, and takes exports of later Zipline versions with more keys.
import { z } from 'zod';

const DateText = z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'must be a date');
const OptionalDate = DateText.nullish();
const RecordId = z.string().min(1).max(64);

export const ZiplineRoleSchema = z.enum(['USER', 'ADMIN', 'SUPERADMIN']);

const User = z.looseObject({
  id: RecordId,
  createdAt: DateText,
  username: z.string().min(1),
  password: z.string().nullish(),
  avatar: z.string().nullish(),
  role: ZiplineRoleSchema,
  view: z.record(z.string(), z.unknown()),
  totpSecret: z.string().nullish(),
});

const Passkey = z.looseObject({
  id: RecordId,
  createdAt: DateText,
  lastUsed: OptionalDate,
  name: z.string(),
  reg: z.record(z.string(), z.unknown()),
  userId: RecordId,
});

const Quota = z.looseObject({
  id: RecordId,
  createdAt: DateText,
  filesQuota: z.enum(['BY_BYTES', 'BY_FILES']),
  /** Zipline keeps it as text ("10gb" or a number of bytes). */
  maxBytes: z.union([z.string(), z.number()]).nullish(),
  maxFiles: z.number().int().nullish(),
  maxUrls: z.number().int().nullish(),
  userId: RecordId.nullish(),
});

const OAuthProvider = z.looseObject({
  id: RecordId,
  createdAt: DateText,
  provider: z.enum(['DISCORD', 'GOOGLE', 'GITHUB', 'OIDC']),
  username: z.string(),
  accessToken: z.string(),
  refreshToken: z.string().nullish(),
  oauthId: z.string().nullish(),
  userId: RecordId,
});

const Tag = z.looseObject({
  id: RecordId,
  createdAt: DateText,
  name: z.string().min(1),
  color: z.string().nullish(),
  files: z.array(RecordId),
  userId: RecordId,
});

const Invite = z.looseObject({
  id: RecordId,
  createdAt: DateText,
  expiresAt: OptionalDate,
  code: z.string().min(1),
  uses: z.number().int(),
  maxUses: z.number().int().nullish(),
  inviterId: z.string(),
});

const Folder = z.looseObject({
  id: RecordId,
  createdAt: DateText,
  name: z.string().min(1),
  public: z.boolean(),
  allowUploads: z.boolean().optional(),
  files: z.array(RecordId),
  userId: RecordId,
  parentId: RecordId.nullish(),
});

const Url = z.looseObject({
  id: RecordId,
  createdAt: DateText,
  code: z.string().min(1),
  vanity: z.string().nullish(),
  destination: z.string().min(1),
  views: z.number().int(),
  maxViews: z.number().int().nullish(),
  password: z.string().nullish(),
  enabled: z.boolean(),
  userId: RecordId.nullish(),
});

const File = z.looseObject({
  id: RecordId,
  createdAt: DateText,
  deletesAt: OptionalDate,
  name: z.string().min(1),
  originalName: z.string().nullish(),
  size: z.number().int().min(0),
  type: z.string().min(1),
  views: z.number().int(),
  maxViews: z.number().int().nullish(),
  favorite: z.boolean(),
  password: z.string().nullish(),
  userId: RecordId.nullable(),
  folderId: RecordId.nullish(),
  /** Chute's: where the bytes are in the datasource (Zipline's files are stored under their name). */
  storageKey: z.string().optional(),
  /** Chute's: the bytes (base64) of a small file kept in the database (storage/database-objects.ts). */
  storedBytes: z.base64().optional(),
  /** Chute's: served only to the owner and through share links. */
  private: z.boolean().optional(),
  /** Chute's: the stored thumbnail's key. */
  thumbnailKey: z.string().nullish(),
  /** Chute's: the name of its link without the extension (abc for abc.png), when its upload was handed one. */
  extensionlessName: z.string().nullish(),
});

const Thumbnail = z.looseObject({ id: z.string(), createdAt: DateText, path: z.string(), fileId: z.string() });
const Metric = z.looseObject({ id: z.string(), createdAt: DateText, data: z.record(z.string(), z.unknown()) });

export const Export4Schema = z
  .looseObject({
    versions: z.looseObject({ zipline: z.string(), node: z.string(), export: z.literal('4') }),
    request: z.looseObject({
      user: z.string(),
      date: z.string(),
      os: z.looseObject({}),
      env: z.record(z.string(), z.string()),
    }),
    data: z.looseObject({
      settings: z.record(z.string(), z.unknown()).nullable(),
      users: z.array(User),
      userPasskeys: z.array(Passkey),
      userQuotas: z.array(Quota),
      userOauthProviders: z.array(OAuthProvider),
      userTags: z.array(Tag),
      invites: z.array(Invite),
      folders: z.array(Folder),
      urls: z.array(Url),
      files: z.array(File),
      thumbnails: z.array(Thumbnail),
      metrics: z.array(Metric),
    }),
    /** Present in Chute's own exports. */
    chute: z.looseObject({ version: z.string(), format: z.literal(1) }).optional(),
  })
  .meta({
    id: 'Export4',
    description: 'Zipline v4\'s instance export (versions.export "4"), as Chute writes and reads it',
  });

export type Export4 = z.infer<typeof Export4Schema>;

export const ImportConfigSchema = z
  .object({
    settings: z
      .boolean()
      .optional()
      .describe("also take the export's settings (Chute's own exports only; env-locked keys are left as they are)"),
    mergeCurrentUser: z
      .string()
      .nullish()
      .describe('the id of an exported user whose content goes to you (the caller) instead of a new account'),
  })
  .meta({ id: 'ImportConfig' });

export type ImportConfig = z.infer<typeof ImportConfigSchema>;

const Counts = z.object({
  users: z.number().int(),
  oauthProviders: z.number().int(),
  quotas: z.number().int(),
  passkeys: z.number().int(),
  folders: z.number().int(),
  files: z.number().int(),
  tags: z.number().int(),
  urls: z.number().int(),
  invites: z.number().int(),
  metrics: z.number().int(),
});

export const ImportResultSchema = z
  .object({
    imported: Counts.describe("records made, by kind (Zipline's answer)"),
    skipped: z
      .array(z.object({ kind: z.string(), id: z.string(), reason: z.string() }))
      .describe('records left out, each with why (a taken username, file name or short code ...)'),
    settings: z.boolean().describe('whether the settings were taken'),
  })
  .meta({ id: 'ImportResult' });

export type ImportResult = z.infer<typeof ImportResultSchema>;

export const ExportCountsSchema = z
  .object({
    users: z.number().int(),
    files: z.number().int(),
    urls: z.number().int(),
    folders: z.number().int(),
    invites: z.number().int(),
    thumbnails: z.number().int(),
    metrics: z.number().int(),
  })
  .meta({ id: 'ExportCounts' });
