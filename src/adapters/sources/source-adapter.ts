import type { ApiEnvironment } from '../../tenancy/entities';

/**
 * Where a data source's client plugs in: a connection's workflow asks its provider's adapter for
 * a window of data and stores it through the health-data ingestion path, whatever the source.
 * The sandbox adapter (sandbox-source.adapter.ts) generates believable physiology for the demo
 * providers; a real provider's adapter would call its API with the connection's credentials.
 */
export const SOURCE_ADAPTER = Symbol('SOURCE_ADAPTER');

/** What a provider granted when the user signed in (OAuth 2 tokens), stored encrypted with the connection. */
export interface ProviderCredentials {
  accessToken: string;
  refreshToken: string | null;
  /** When the access token stops working (ISO 8601), or null when the provider did not say. */
  expiresAt: string | null;
  /** The scopes the user granted. */
  scopes: string[];
}

/** What a real provider granted at sign-in (the Link flow), kept with the connection. */
export interface ProviderGrant {
  credentials: ProviderCredentials;
  /** The provider's id of the user. */
  externalUserId?: string | null;
}

/** What a source delivers for one window, as ingestion takes it. */
export interface SourceBatch {
  kind: 'timeseries' | 'summary';
  /** A health-data registry slug (timeseries resource or summary type). */
  resource: string;
  /** The kind of device (`watch`, `ring`, `cgm`): part of a sample's key. */
  sourceType: string;
  data: Array<Record<string, unknown>>;
}

export interface SourceConnection {
  /** labflow's user: ids an adapter derives from a provider's record ids are made per user (another user may connect the same account). */
  userId: string;
  provider: string;
  environment: ApiEnvironment;
  /** Makes a sandbox source's data the same whenever the same window is pulled again. */
  seed: string;
  /** The user's time zone (local days of summaries). */
  timeZone: string;
  /** What the user granted at sign-in; null for a source that needs nothing (the sandbox). */
  credentials: ProviderCredentials | null;
  /**
   * Keeps credentials the provider replaced (a refreshed access token, and the refresh token that
   * comes with it). An adapter calls it before it uses them: a provider that rotates refresh
   * tokens accepts the old one no more, so credentials lost after a refresh lose the connection.
   */
  saveCredentials(credentials: ProviderCredentials): Promise<void>;
  /** The credentials stored now (another pull of the connection may have refreshed them since this one began). */
  storedCredentials(): Promise<ProviderCredentials | null>;
}

export interface SourceAdapter {
  /** Whether this adapter fetches `provider`'s data for connections of `environment`. */
  serves(provider: string, environment: ApiEnvironment): boolean;
  /** Every (kind, resource, source type) the provider delivers, whether or not a window has data of it. */
  resources(provider: string, environment: ApiEnvironment): ReadonlyArray<Omit<SourceBatch, 'data'>>;
  /** The data of [from, to) in epoch ms. Pulling the same window again gives the same data. */
  pull(connection: SourceConnection, from: number, to: number): Promise<SourceBatch[]>;
  /**
   * The user deregistered the provider: ends labflow's access at the provider (revokes the
   * grant), where the provider has such a thing. Called after the connection is gone.
   */
  revoke?(connection: Pick<SourceConnection, 'provider' | 'environment' | 'credentials'>): Promise<void>;
}

/** Junction's connection error types (`provider.connection.error`'s `error_type`). */
export const CONNECTION_ERROR_TYPES = [
  'token_refresh_failed',
  'webhook_registration_failed',
  'user_not_found',
  'deregistered_per_provider',
  'required_scopes_not_granted',
  'provider_credential_error',
  'provider_password_expired',
  'unknown',
] as const;
export type ConnectionErrorType = (typeof CONNECTION_ERROR_TYPES)[number];

/**
 * Thrown by `pull` when the source refuses the connection itself (revoked or expired
 * credentials, scopes taken away): trying again does not help until the user acts, so the
 * connection is marked `error` and `provider.connection.error` is sent, instead of the step being
 * retried like a passing failure (any other error).
 */
export class SourceConnectionError extends Error {
  constructor(
    readonly errorType: ConnectionErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'SourceConnectionError';
  }
}
