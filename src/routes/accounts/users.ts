// User administration for ADMINs and SUPERADMINs: /api/users (list, create) and /api/users/:id (get, edit, delete).
// The role rules are in services/accounts/users.ts.
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { Id } from '../../schemas/common.js';
import { pageFields, pageFieldsSchema } from '../../schemas/paged-list.js';
import { NewPasswordText, QuotaInputSchema, RoleSchema, UserSchema } from '../../schemas/user.js';
import { TagSchema } from '../../schemas/tag.js';
import { toTagDto } from '../../services/organise/dto.js';
import {
  createUser,
  deleteUser,
  getUser,
  listUsers,
  readableUserTags,
  updateUser,
} from '../../services/accounts/users.js';

const tags = ['users'];
const Username = z.string().min(1).max(128);
const Avatar = z.string().max(2_000_000).describe('base64 PNG, JPEG, GIF or WebP (at most 1 MiB decoded)');
const Params = z.object({ id: Id });

/**
 * The answer of POST/GET/PATCH/DELETE /api/users[/:id]: the User itself, as Zipline answers, and the same User again
 * under `user`, as Chute's dashboard and clients read it.
 */
const UserAnswer = UserSchema.extend({ user: UserSchema.describe("the same user (Chute's {user} shape)") });

function userAnswer(user: z.infer<typeof UserSchema>): z.infer<typeof UserAnswer> {
  return { ...user, user };
}

/** Under /api/users, for admins. */
export const usersRoutes: RouteModule = (app, ctx) => {
  app.get(
    '',
    {
      schema: {
        tags,
        summary:
          'The users, oldest first: with page or cursor, one page of them; without, all of them as an array (as Zipline)',
        querystring: z.object({
          page: z.coerce.number().int().min(1).optional().describe('asks for a page object instead of an array'),
          cursor: z
            .string()
            .max(2000)
            .optional()
            .describe("the previous page's nextCursor: the page after it (a page object; page is then not used)"),
          perpage: z.coerce.number().int().min(1).max(100).default(20),
          search: z.string().max(128).optional().describe('part of the username, case-insensitive (all of Unicode)'),
          role: RoleSchema.optional(),
          noincl: z.enum(['true', 'false']).optional().describe("Zipline's: true leaves the caller out"),
        }),
        response: {
          200: z.union([
            // Zipline's page of users: the items under `users`, with the page's number and size.
            z.object({
              users: z.array(UserSchema),
              page: z.number().int(),
              perpage: z.number().int(),
              ...pageFieldsSchema(),
            }),
            z.array(UserSchema),
          ]),
        },
      },
    },
    async (request) => {
      const { noincl, page, cursor, ...query } = request.query;
      const listedBy = caller(request).user.id;
      const excludeId = noincl === 'true' ? listedBy : undefined;
      if (page === undefined && cursor === undefined)
        return (await listUsers(ctx, { ...query, page: 1, perpage: null, listedBy, excludeId })).users;
      const listed = await listUsers(ctx, { ...query, page: page ?? 1, cursor, listedBy, excludeId });
      return { users: listed.users, page: listed.page, perpage: listed.perpage, ...pageFields(listed, listed.perpage) };
    },
  );

  app.post(
    '',
    {
      schema: {
        tags,
        summary: 'Create a user (an ADMIN creates USERs; a SUPERADMIN also ADMINs and SUPERADMINs)',
        description:
          'A taken username answers 1040; creating an ADMIN without being a SUPERADMIN 3008, a SUPERADMIN 3015.',
        body: z.object({
          username: Username,
          password: NewPasswordText,
          role: RoleSchema.default('USER'),
          avatar: Avatar.nullable().optional(),
          quota: QuotaInputSchema.nullable().optional(),
        }),
        response: { 200: UserAnswer },
      },
    },
    async (request) => userAnswer(await createUser(ctx, caller(request).user, request.body)),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'One user (4009 when unknown, 3019 when the caller does not manage them)',
        params: Params,
        response: { 200: UserAnswer },
      },
    },
    async (request) => userAnswer(await getUser(ctx, caller(request).user, request.params.id)),
  );

  app.get(
    '/:id/tags',
    {
      schema: {
        tags,
        summary: "A user's tags (4009 when unknown, 3019 when an ADMIN asks for an ADMIN or a SUPERADMIN)",
        params: Params,
        response: { 200: z.array(TagSchema) },
      },
    },
    async (request) => (await readableUserTags(ctx, caller(request).user, request.params.id)).map(toTagDto),
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags,
        summary: "Edit a user's username, password, avatar, role or quota; missing properties stay",
        description:
          'An ADMIN edits USERs, a SUPERADMIN USERs and ADMINs, everyone themselves (3019 otherwise). Granting ADMIN ' +
          'needs a SUPERADMIN (3007), granting SUPERADMIN too (3015); the last SUPERADMIN cannot step down (3007). ' +
          'quota: null removes it. A password set for someone else ends their sessions.',
        params: Params,
        body: z.object({
          username: Username.optional(),
          password: NewPasswordText.optional(),
          avatar: Avatar.nullable().optional(),
          role: RoleSchema.optional(),
          quota: QuotaInputSchema.nullable().optional(),
        }),
        response: { 200: UserAnswer },
      },
    },
    async (request) => userAnswer(await updateUser(ctx, caller(request).user, request.params.id, request.body)),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a user; with {delete: true} also their files (and stored bytes) and short URLs',
        description:
          'Without delete the files and short URLs stay, without an owner. Oneself -> 3010; a user the caller does ' +
          'not manage (an ADMIN deleting an ADMIN, anyone deleting a SUPERADMIN) -> 3009.',
        params: Params,
        body: z.object({ delete: z.boolean().default(false) }).nullish(),
        response: {
          200: UserAnswer.extend({ deletedFiles: z.number().int(), deletedUrls: z.number().int() }),
        },
      },
    },
    async (request) => {
      const { user, ...counts } = await deleteUser(ctx, caller(request).user, request.params.id, {
        withContent: request.body?.delete ?? false,
      });
      return { ...userAnswer(user), ...counts };
    },
  );
};
