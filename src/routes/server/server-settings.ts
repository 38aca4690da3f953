// Server settings: GET/PATCH /api/server/settings for admins (with the keys the environment locks), and
// GET /api/server/public, what a login or register page (and the upload page: chunk sizes) needs before anyone is logged in.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { PublicServerInfoSchema } from '../../schemas/server.js';
import { publicServerInfo } from '../../services/operations/public-info.js';
import {
  SECRET_MASK,
  SECRET_SETTING_KEYS,
  SETTING_DEFINITIONS,
  SETTING_KEYS,
  settingsAsSeenBy,
  type SettingKey,
  type Settings,
} from '../../services/operations/settings.js';

const tags = ['server'];

/** The JSON shape of one setting's value, from its default (the definitions' own schemas also parse input forms). */
function valueSchema(key: SettingKey): z.ZodType {
  const def = SETTING_DEFINITIONS[key];
  const value: unknown = def.default;
  const schema =
    typeof value === 'boolean'
      ? z.boolean()
      : typeof value === 'number'
        ? z.number()
        : Array.isArray(value)
          ? z.array(z.string())
          : value === null
            ? z.string().nullable()
            : z.string();
  return schema.describe(`${def.description} (environment: ${def.env})`);
}

const SettingsSchema = z
  .object(Object.fromEntries(SETTING_KEYS.map((key) => [key, valueSchema(key)])) as Record<SettingKey, z.ZodType>)
  .meta({ id: 'ServerSettings' });

const SettingKeySchema = z.enum(SETTING_KEYS as [SettingKey, ...SettingKey[]]);

const SettingsAnswer = z
  .object({
    settings: SettingsSchema,
    locked: z.array(SettingKeySchema).describe('keys set by environment variables; PATCH refuses them (1022)'),
    fields: z
      .record(
        z.string(),
        z.object({
          description: z.string(),
          env: z.string(),
          default: z
            .union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()])
            .describe('the value the key has when neither an admin nor the environment set it'),
        }),
      )
      .describe("each key's meaning, environment variable and default"),
  })
  .meta({ id: 'ServerSettingsAnswer' });

const FIELDS = Object.fromEntries(
  SETTING_KEYS.map((key) => [
    key,
    {
      description: SETTING_DEFINITIONS[key].description,
      env: SETTING_DEFINITIONS[key].env,
      default: SETTING_DEFINITIONS[key].default as string | number | boolean | string[] | null,
    },
  ]),
);

/** Under /api/server, for admins. */
export const serverSettingsRoutes: RouteModule = (app, ctx) => {
  const answer = (request: FastifyRequest, settings: Settings) => ({
    settings: settingsAsSeenBy(settings, caller(request).user.role),
    locked: ctx.settings.lockedKeys(),
    fields: FIELDS,
  });

  app.get(
    '/settings',
    {
      schema: {
        tags,
        summary: 'The server settings, the keys locked by the environment, and what each key means',
        description:
          'Read from the database on every call (4010 when the settings record is missing). Secrets (' +
          `${SECRET_SETTING_KEYS.join(', ')}) are answered in full to the SUPERADMIN only; other admins read ` +
          `"${SECRET_MASK}" when one is set.`,
        response: { 200: SettingsAnswer },
      },
    },
    async (request) => answer(request, await ctx.settings.refresh()),
  );

  app.patch(
    '/settings',
    {
      schema: {
        tags,
        summary: 'Change some settings; they take effect at once',
        description:
          'Unknown keys, invalid values and keys locked by the environment are refused together with 1022, naming ' +
          'each failing key in issues; nothing is stored then. 4010 when the settings record is missing. A secret ' +
          `sent back as "${SECRET_MASK}" (as an ADMIN read it) keeps its stored value.`,
        body: z.record(z.string(), z.unknown()),
        response: { 200: SettingsAnswer },
      },
    },
    async (request) => answer(request, await ctx.settings.update(request.body)),
  );
};

/** Under /api/server, for anyone. */
export const publicServerInfoRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/public',
    {
      schema: {
        summary: 'What a login or register page (and the upload page) needs, without logging in',
        tags,
        response: {
          200: PublicServerInfoSchema,
        },
      },
    },
    async () => publicServerInfo(ctx),
  );
};
