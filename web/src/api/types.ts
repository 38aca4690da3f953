// The API's shapes as the dashboard sees them (docs/api-spec.md and the server's zod schemas in src/routes).
export type Role = 'USER' | 'ADMIN' | 'SUPERADMIN';

export interface UserViewSettings {
  enabled?: boolean | null;
  disableTextFiles?: boolean | null;
  align?: 'left' | 'center' | 'right' | null;
  showMimetype?: boolean | null;
  showTags?: boolean | null;
  showFolder?: boolean | null;
  content?: string | null;
  embed?: boolean | null;
  embedMediaOnly?: boolean | null;
  embedTitle?: string | null;
  embedDescription?: string | null;
  embedColor?: string | null;
  embedSiteName?: string | null;
}

export interface Session {
  id: string;
  createdAt: string;
  ua: string;
}

export interface Quota {
  filesQuota: 'BY_BYTES' | 'BY_FILES';
  maxBytes: string | null;
  maxFiles: number | null;
  maxUrls: number | null;
}

export interface User {
  id: string;
  username: string;
  createdAt: string;
  updatedAt: string;
  role: Role;
  view: UserViewSettings;
  sessions: Array<Session | string>;
  oauthProviders: unknown[];
  totpEnabled?: boolean;
  quota?: Quota | null;
  avatar?: string | null;
}

/** GET /api/user */
export interface CurrentUser {
  user: User;
  token: string;
}

/** GET /api/server/public: what pages need before anyone logs in. */
export interface PublicServerInfo {
  siteTitle: string;
  registrationEnabled: boolean;
  invitesEnabled: boolean;
  firstSetup: boolean;
  /** The upload page sends files larger than chunksThreshold bytes in chunks of chunksSize bytes. */
  chunksEnabled: boolean;
  chunksThreshold: number;
  chunksSize: number;
}

export const isAdmin = (user: Pick<User, 'role'> | null | undefined): boolean =>
  user?.role === 'ADMIN' || user?.role === 'SUPERADMIN';
