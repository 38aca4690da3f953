// The User resource and the shapes it carries, exactly as the specification's tables give them.
import { z } from 'zod';
import { IsoDateTime, JsonValueSchema } from './common.js';
import { PASSWORD_MAX_UNITS } from '../lib/security/password-rules.js';

/** An account's password as a request carries it (signing in, the current password). */
export const PasswordText = z.string().min(1).max(PASSWORD_MAX_UNITS);

/** A new account password: the rules (length, common passwords) are checked by the service, answering 1000. */
export const NewPasswordText = PasswordText.describe(
  'at least passwordMinLength characters (GET /api/server/public; 8 by default) and at most 1024, counted in ' +
    'Unicode code points after NFKC; any characters; not one of the 10,000 most common passwords (any case)',
);

export const RoleSchema = z.enum(['USER', 'ADMIN', 'SUPERADMIN']);

export const UserViewSettingsSchema = z
  .object({
    enabled: z.boolean().nullable().optional(),
    disableTextFiles: z.boolean().nullable().optional(),
    align: z.enum(['left', 'center', 'right']).nullable().optional(),
    showMimetype: z.boolean().nullable().optional(),
    showTags: z.boolean().nullable().optional(),
    showFolder: z.boolean().nullable().optional(),
    content: z.string().max(10_000).nullable().optional(),
    embed: z.boolean().nullable().optional(),
    embedMediaOnly: z.boolean().nullable().optional(),
    embedTitle: z.string().max(1000).nullable().optional(),
    embedDescription: z.string().max(2000).nullable().optional(),
    embedColor: z.string().max(32).nullable().optional(),
    embedSiteName: z.string().max(1000).nullable().optional(),
  })
  .meta({ id: 'UserViewSettings' });

export type UserViewSettings = z.infer<typeof UserViewSettingsSchema>;

export const SessionSchema = z
  .object({
    id: z.string(),
    createdAt: IsoDateTime,
    ua: z.string(),
    client: z.string(),
    device: z.string(),
    userId: z.string(),
  })
  .meta({ id: 'Session' });

/** GET and DELETE /api/user/sessions: the caller's own session (null with the API token) and the others. */
export const SessionListSchema = z
  .object({ current: SessionSchema.nullable(), other: z.array(SessionSchema) })
  .meta({ id: 'SessionList' });
export type SessionListDto = z.infer<typeof SessionListSchema>;

export const OAuthProviderSchema = z
  .object({
    id: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    userId: z.string(),
    provider: z.enum(['DISCORD', 'GOOGLE', 'GITHUB', 'OIDC']),
    username: z.string(),
    oauthId: z.string().nullable(),
  })
  .meta({ id: 'OAuthProvider' });
export type OAuthProviderDto = z.infer<typeof OAuthProviderSchema>;

export const PasskeySchema = z
  .object({
    id: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    lastUsed: IsoDateTime.nullable(),
    name: z.string(),
    reg: JsonValueSchema,
    userId: z.string(),
  })
  .meta({ id: 'Passkey' });

export const QuotaSchema = z
  .object({
    id: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    filesQuota: z.enum(['BY_BYTES', 'BY_FILES']),
    maxBytes: z.string().nullable().describe('byte limit carried as a string'),
    maxFiles: z.number().int().nullable(),
    maxUrls: z.number().int().nullable(),
    userId: z.string().nullable(),
  })
  .meta({ id: 'Quota' });

export const UserSchema = z
  .object({
    id: z.string(),
    username: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    role: RoleSchema,
    view: UserViewSettingsSchema,
    sessions: z.array(SessionSchema),
    oauthProviders: z.array(OAuthProviderSchema),
    totpEnabled: z.boolean(),
    passkeys: z.array(PasskeySchema).optional(),
    quota: QuotaSchema.nullable().optional(),
    avatar: z.string().nullable().optional().describe('base64 image (data URL)'),
  })
  .meta({ id: 'User' });

export type UserDto = z.infer<typeof UserSchema>;
export type SessionDto = z.infer<typeof SessionSchema>;
export type QuotaDto = z.infer<typeof QuotaSchema>;

/** GET/PATCH /api/user answer: the user and the user's API token. */
export const UserWithTokenSchema = z.object({ user: UserSchema, token: z.string() });
export type UserWithTokenDto = z.infer<typeof UserWithTokenSchema>;

/**
 * A quota as an admin writes it (PATCH/POST /api/users): filesQuota BY_BYTES needs maxBytes (1056), BY_FILES needs
 * maxFiles (1057), NONE limits no files (only maxUrls, if given). maxBytes takes bytes or a size such as "10gb".
 */
const FilesQuotaKind = z.enum(['BY_BYTES', 'BY_FILES', 'NONE']);
export const QuotaInputSchema = z
  .object({
    filesQuota: FilesQuotaKind.optional().describe('required, here or as filesType'),
    filesType: FilesQuotaKind.optional().describe("Zipline's name for filesQuota (when both come, filesQuota wins)"),
    maxBytes: z
      .union([z.string().max(32), z.number().int().min(0)])
      .nullable()
      .optional(),
    maxFiles: z.number().int().min(0).nullable().optional(),
    maxUrls: z.number().int().min(0).nullable().optional(),
  })
  .meta({ id: 'QuotaWrite' })
  .refine((q) => q.filesQuota !== undefined || q.filesType !== undefined, {
    message: "filesQuota (or Zipline's filesType) is required",
    path: ['filesQuota'],
  })
  .transform(({ filesType, filesQuota, ...rest }) => ({ ...rest, filesQuota: (filesQuota ?? filesType)! }));

export type QuotaInput = z.infer<typeof QuotaInputSchema>;
