// The calls of the scoped API tokens section (src/routes/accounts/user-tokens.ts): make one (its secret answered once), list,
// revoke.
import { request, type ApiBody } from '../../api/client';
import type { components } from '../../api/openapi';

export type ApiToken = components['schemas']['ApiToken'];
export type TokenScope = components['schemas']['TokenScope'];
export type CreatedApiToken = components['schemas']['CreatedApiToken'];

/** The scopes in the order the form shows them, each with what it allows in words (docs/api.md has the routes). */
export const SCOPE_CHOICES: ReadonlyArray<{ value: TokenScope; label: string; description: string }> = [
  { value: 'upload', label: 'Upload', description: 'Upload files (ShareX, Flameshot, scripts)' },
  { value: 'files:read', label: 'Read files', description: 'List and download your files, folders and tags' },
  { value: 'files:write', label: 'Change files', description: 'Edit and delete files, folders and tags' },
  { value: 'urls', label: 'Short URLs', description: 'Shorten, list, edit and delete your short URLs' },
  { value: 'admin', label: 'Administration', description: 'Users, invites and server settings (admins only)' },
];

export function listApiTokens(signal?: AbortSignal) {
  return request('get', '/api/user/tokens', { signal });
}

export function createApiToken(body: ApiBody<'/api/user/tokens', 'post'>) {
  return request('post', '/api/user/tokens', { body });
}

export function revokeApiToken(id: string) {
  return request('delete', '/api/user/tokens/{id}', { params: { id } });
}
