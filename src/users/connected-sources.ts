/**
 * The user object's `connected_sources`, shown by the connections module (src/connections), which
 * depends on users and so cannot be imported here: it provides this token (globally), and
 * UsersService asks it when present (the worker has no connections, and builds no user object).
 * The connections themselves are read with the user (user-read-model.ts).
 */
export const CONNECTED_SOURCES = Symbol('CONNECTED_SOURCES');

/** `{provider{name, slug, logo}, created_on, source{name, slug, logo}}` as the user object carries it. */
export interface ConnectedSourceView {
  provider: { name: string; slug: string; logo: string };
  created_on: string;
  source: { name: string; slug: string; logo: string };
}

/** What the user object shows of one of its user's connections (a row of `provider_connections`). */
export interface UserConnection {
  provider: string;
  createdAt: Date;
}

export interface ConnectedSources {
  /** The user object's entry for this connection. */
  viewOf(connection: UserConnection): ConnectedSourceView;
}
