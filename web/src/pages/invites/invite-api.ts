// Invites as the admin invites page uses them (src/routes/accounts/invites.ts).
import { request, type ApiBody } from '../../api/client';
import type { components } from '../../api/openapi';

export type Invite = components['schemas']['Invite'];

export const listInvites = (signal?: AbortSignal) => request('get', '/api/auth/invites', { signal });

/** expiresAt: an ISO date-time, a duration from now such as "7d", or null for never. */
export const createInvite = (body: ApiBody<'/api/auth/invites', 'post'>) =>
  request('post', '/api/auth/invites', { body });

export const deleteInvite = (id: string) => request('delete', '/api/auth/invites/{id}', { params: { id } });

/** The register page with the code filled in, on this server. */
export const inviteLink = (code: string) => `${window.location.origin}/auth/register?code=${encodeURIComponent(code)}`;

export type InviteState = 'active' | 'expired' | 'used-up';

export function inviteState(invite: Invite, now = Date.now()): InviteState {
  if (invite.expiresAt !== null && Date.parse(invite.expiresAt) <= now) return 'expired';
  if (invite.maxUses !== null && invite.uses >= invite.maxUses) return 'used-up';
  return 'active';
}
