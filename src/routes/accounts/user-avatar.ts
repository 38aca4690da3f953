// Avatars: GET /api/user/avatar (the caller's) and GET /api/users/:id/avatar (admins, as an image). Avatars are stored
// as data URLs whose type was sniffed from the bytes (PNG, JPEG, GIF or WebP), see PATCH /api/user. The caller's is
// answered as Zipline answers it, the data URL as text, unless the client asks for an image (Accept: image/...), as
// an <img> does: then the bytes.
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import { ApiError } from '../../lib/errors.js';
import type { RouteModule } from '../../http/types.js';
import { Id } from '../../schemas/common.js';
import { findUserById } from '../../services/accounts/account.js';

const imageResponse = { 200: z.any().describe('the image bytes (image/png, image/jpeg, image/gif or image/webp)') };

function sendAvatar(reply: FastifyReply, avatar: string | null, asDataUrl = false): FastifyReply {
  const match = avatar === null ? null : /^data:(image\/[\w.+-]+);base64,(.*)$/s.exec(avatar);
  if (!match) throw new ApiError(9002, 'no avatar');
  if (asDataUrl) {
    return reply
      .header('content-type', 'text/plain; charset=utf-8')
      .header('cache-control', 'private, no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(avatar);
  }
  return reply
    .header('content-type', match[1]!)
    .header('cache-control', 'private, no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'")
    .send(Buffer.from(match[2]!, 'base64'));
}

/** Under /api/user, for a signed-in user. */
export const userAvatarRoutes: RouteModule = (app) => {
  app.get(
    '/avatar',
    {
      schema: {
        summary:
          "The caller's avatar: its data URL as text (Zipline's answer), the image with Accept: image/* (404, 9002 when none)",
        tags: ['user'],
        response: {
          200: z
            .any()
            .describe('text/plain: the data URL; with Accept: image/...: the image bytes (png, jpeg, gif or webp)'),
        },
      },
    },
    async (request, reply) =>
      sendAvatar(reply, caller(request).user.avatar, !/\bimage\//.test(request.headers.accept ?? '')),
  );
};

/** Under /api/users, for admins. */
export const usersAvatarRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/:id/avatar',
    {
      schema: {
        summary: "A user's avatar image (4009 unknown user, 9002 no avatar)",
        tags: ['users'],
        params: z.object({ id: Id }),
        response: imageResponse,
      },
    },
    async (request, reply) => {
      const user = await findUserById(ctx.db, request.params.id);
      if (!user) throw new ApiError(4009);
      return sendAvatar(reply, user.avatar);
    },
  );
};
