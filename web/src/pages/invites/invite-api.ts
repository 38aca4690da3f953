// Invites as the admin invites page uses them (src/routes/invites.ts).
import { api } from '../../api/client';

export interface Invite {
  id: string;
  code: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  maxUses: number | null;
  uses: number;
  inviterId: string | null;
  inviter: { id: string; username: string } | null;
}

export const listInvites = (signal?: AbortSignal) => api<Invite[]>('/api/auth/invites', { signal });

/** expiresAt: an ISO date-time, a duration from now such as "7d", or null for never. */
export const createInvite = (body: { expiresAt: string | null; maxUses: number | null }) =>
  api<Invite>('/api/auth/invites', { method: 'POST', body });

export const deleteInvite = (id: string) =>
  api<Invite>(`/api/auth/invites/${encodeURIComponent(id)}`, { method: 'DELETE' });

/** The register page with the code filled in, on this server. */
export const inviteLink = (code: string) => `${window.location.origin}/auth/register?code=${encodeURIComponent(code)}`;

export type InviteState = 'active' | 'expired' | 'used-up';

export function inviteState(invite: Invite, now = Date.now()): InviteState {
  if (invite.expiresAt !== null && Date.parse(invite.expiresAt) <= now) return 'expired';
  if (invite.maxUses !== null && invite.uses >= invite.maxUses) return 'used-up';
  return 'active';
}
