import type { ApiEnvironment } from '../tenancy/entities';
import { type SourceAdapter, type SourceBatch, type SourceConnection, SourceConnectionError } from '../adapters/sources/source-adapter';

/**
 * What SOURCE_ADAPTER is: for each connection, the first adapter that serves its provider in its
 * environment — a real provider's client where one is configured (production teams), else the
 * sandbox's generated data. A provider nobody serves delivers nothing (push sources: the
 * user's phone sends their data).
 */
export class SourceRouter implements SourceAdapter {
  constructor(private readonly adapters: readonly SourceAdapter[]) {}

  serves(provider: string, environment: ApiEnvironment): boolean {
    return this.adapterFor(provider, environment) !== null;
  }

  resources(provider: string, environment: ApiEnvironment): ReadonlyArray<Omit<SourceBatch, 'data'>> {
    return this.adapterFor(provider, environment)?.resources(provider, environment) ?? [];
  }

  pull(connection: SourceConnection, from: number, to: number): Promise<SourceBatch[]> {
    const adapter = this.adapterFor(connection.provider, connection.environment);
    // Its client was configured when the user connected and is not now (OURA_CLIENT_ID removed):
    // nothing to retry until it is back, so the connection shows the error.
    if (!adapter) throw new SourceConnectionError('unknown', `labflow is not set up to fetch ${connection.provider} data in ${connection.environment}.`);
    return adapter.pull(connection, from, to);
  }

  async revoke(connection: Pick<SourceConnection, 'provider' | 'environment' | 'credentials'>): Promise<void> {
    await this.adapterFor(connection.provider, connection.environment)?.revoke?.(connection);
  }

  private adapterFor(provider: string, environment: ApiEnvironment): SourceAdapter | null {
    return this.adapters.find((adapter) => adapter.serves(provider, environment)) ?? null;
  }
}
