/**
 * The user object's `connected_sources`, read from the connections module (src/connections),
 * which depends on users and so cannot be imported here: it provides this token (globally), and
 * UsersService asks it when present (the management API has no connections, so `[]` there).
 */
export const CONNECTED_SOURCES = Symbol('CONNECTED_SOURCES');

/** `{provider{name, slug, logo}, created_on, source{name, slug, logo}}` as the user object carries it. */
export interface ConnectedSourceView {
  provider: { name: string; slug: string; logo: string };
  created_on: string;
  source: { name: string; slug: string; logo: string };
}

export interface ConnectedSources {
  /** Each user's connected sources, oldest first (users without any are absent). */
  ofUsers(userIds: string[]): Promise<Map<string, ConnectedSourceView[]>>;
}
