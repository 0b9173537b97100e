import { Inject, Injectable } from '@nestjs/common';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { generateDemoData, SANDBOX_PROVIDERS, type SandboxProvider } from './sandbox-physiology';
import {
  CONNECTION_ERROR_TYPES,
  type ConnectionErrorType,
  SourceConnectionError,
  type SourceAdapter,
  type SourceBatch,
  type SourceConnection,
} from '../adapters/sources/source-adapter';

const DAY_MS = 86_400_000;
/** Two whole days: every resource a demo provider generates appears in them (sleep needs a night). */
const CATALOGUE_WINDOW = { from: Date.UTC(2026, 0, 5), to: Date.UTC(2026, 0, 5) + 2 * DAY_MS };

/** What a real source says when it refuses a connection, per error type (the sandbox's wording). */
const ERROR_MESSAGES: Record<ConnectionErrorType, string> = {
  token_refresh_failed: 'The access token could not be refreshed: the user revoked access or the refresh token expired.',
  webhook_registration_failed: 'The provider refused to register labflow for its data notifications.',
  user_not_found: 'The provider no longer knows this user.',
  deregistered_per_provider: 'The provider ended the connection.',
  required_scopes_not_granted: 'The user did not grant the scopes the connection needs.',
  provider_credential_error: 'The provider refused the stored credentials.',
  provider_password_expired: "The user's password at the provider has expired.",
  unknown: 'The provider refused the connection for a reason it did not give.',
};

/**
 * The demo providers of Junction's sandbox (and the Link flow's sandbox password providers), backed by generated physiology (sandbox-physiology.ts).
 * A provider named in SANDBOX_SOURCE_ERRORS refuses every pull with that connection error instead,
 * as a real source does once its user's credentials stop working.
 */
@Injectable()
export class SandboxSourceAdapter implements SourceAdapter {
  private readonly catalogue = new Map<string, Array<Omit<SourceBatch, 'data'>>>();
  private readonly failing = new Map<string, ConnectionErrorType>();

  constructor(@Inject(LABFLOW_CONFIG) config: Pick<LabflowConfig, 'sandboxSourceErrors'>) {
    for (const [provider, errorType] of Object.entries(config.sandboxSourceErrors)) {
      if (!SANDBOX_PROVIDERS.includes(provider as SandboxProvider))
        throw new Error(`SANDBOX_SOURCE_ERRORS: ${provider} is not a sandbox provider (${SANDBOX_PROVIDERS.join(', ')})`);
      if (!CONNECTION_ERROR_TYPES.includes(errorType as ConnectionErrorType)) {
        throw new Error(`SANDBOX_SOURCE_ERRORS: ${errorType} is not a connection error type (${CONNECTION_ERROR_TYPES.join(', ')})`);
      }
      this.failing.set(provider, errorType as ConnectionErrorType);
    }
  }

  /** Its providers in either environment: production has them only where a real client serves none (source-router.ts). */
  serves(provider: string): boolean {
    return (SANDBOX_PROVIDERS as readonly string[]).includes(provider);
  }

  resources(provider: string): ReadonlyArray<Omit<SourceBatch, 'data'>> {
    let resources = this.catalogue.get(provider);
    if (!resources) {
      // What the generator produces is the catalogue: derived, so the two never disagree.
      const batches = generateDemoData({ provider: provider as SandboxProvider, seed: 'catalogue', timeZone: 'UTC', ...CATALOGUE_WINDOW });
      resources = batches.map(({ kind, resource, sourceType }) => ({ kind, resource, sourceType }));
      this.catalogue.set(provider, resources);
    }
    return resources;
  }

  async pull(connection: SourceConnection, from: number, to: number): Promise<SourceBatch[]> {
    const errorType = this.failing.get(connection.provider);
    if (errorType) throw new SourceConnectionError(errorType, ERROR_MESSAGES[errorType]);
    return generateDemoData({ provider: connection.provider as SandboxProvider, seed: connection.seed, timeZone: connection.timeZone, from, to });
  }
}
