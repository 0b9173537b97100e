/**
 * The user object's `connected_sources`, shown by the connections module (src/connections), which
 * depends on users and so cannot be imported here: it provides this token (globally), and
 * UsersService asks it when present (a process without the connections module, such as the ops CLI, has none).
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
  /**
   * What the user's connections were granted by real providers, read before the user is erased
   * (the rows go with the user), to be handed to `revokeGrants` once the erasure went through.
   */
  grantsOf(userId: string): Promise<ConnectionGrants>;
  /** The user is erased: each provider ends labflow's access too (best effort, logged). */
  revokeGrants(grants: ConnectionGrants): Promise<void>;
}

/** Opaque to users: the connections module's sealed grants of one user. */
export type ConnectionGrants = ReadonlyArray<unknown>;
