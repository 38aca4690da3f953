// The API shapes only the settings page reads (src/routes/user.ts, src/schemas/user.ts).

/** A login session as GET /api/user/sessions lists it; client and device are the server's reading of the ua. */
export interface SessionInfo {
  id: string;
  createdAt: string;
  ua: string;
  client: string;
  device: string;
  userId: string;
}

/** GET and DELETE /api/user/sessions: the caller's own session (null when signed in with the API token) and the rest. */
export interface SessionList {
  current: SessionInfo | null;
  other: SessionInfo[];
}
