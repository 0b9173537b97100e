import { providerOf } from '../health-data/providers';
import type { ConnectedSourceView, UserConnection } from '../users/connected-sources';
import type { NewEvent } from '../events/outbox.service';
import type { ConnectionRow } from './connections.repository';
import type { SourceBatch } from '../adapters/sources/source-adapter';

/** `resource_availability`: every resource the provider delivers, available (demo sources ask no scopes). */
export function resourceAvailability(resources: ReadonlyArray<Omit<SourceBatch, 'data'>>): Record<string, { status: 'available' }> {
  return Object.fromEntries(resources.map((resource) => [resource.resource, { status: 'available' as const }]));
}

/**
 * The provider's own id of the user: the one the team gave for a pushed connection, else the
 * connection's (demo sources have none; a pushed source without one is known by its connection).
 */
export function externalUserIdOf(connection: Pick<ConnectionRow, 'id' | 'kind' | 'externalUserId'>): string {
  return connection.externalUserId ?? (connection.kind === 'push' ? connection.id : `demo-${connection.id}`);
}

/** One entry of `GET /v2/user/providers/{user_id}` (ClientFacingProviderWithStatus). */
export function providerWithStatusView(connection: ConnectionRow, resources: ReadonlyArray<Omit<SourceBatch, 'data'>>) {
  return {
    ...providerOf(connection.provider),
    created_on: connection.createdAt.toISOString(),
    status: connection.status,
    external_user_id: externalUserIdOf(connection),
    // ClientFacingConnectionErrorDetails, only while the connection is in error.
    ...(connection.status === 'error'
      ? { error_details: { error_type: connection.errorType, error_message: connection.errorMessage, errored_at: connection.erroredAt?.toISOString() } }
      : {}),
    resource_availability: resourceAvailability(resources),
  };
}

/** One entry of the user object's `connected_sources`. */
export function connectedSourceView(connection: UserConnection): ConnectedSourceView {
  const provider = providerOf(connection.provider);
  return { provider, created_on: connection.createdAt.toISOString(), source: provider };
}

/** `provider.connection.created` of a connection: once per connection (its id keys the event). */
export function connectionCreatedEvent(row: ConnectionRow, clientUserId: string, resources: ReadonlyArray<Omit<SourceBatch, 'data'>>): NewEvent {
  const provider = providerOf(row.provider);
  return {
    idempotencyKey: `connection:${row.id}:created`,
    eventType: 'provider.connection.created',
    teamId: row.teamId,
    environment: row.environment,
    userId: row.userId,
    clientUserId,
    data: { user_id: row.userId, source: provider, provider, external_user_id: externalUserIdOf(row), resource_availability: resourceAvailability(resources) },
  };
}
