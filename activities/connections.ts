import { whileBeating } from './heartbeat';
import type { ConnectionActivities, ConnectionIdentity, SyncConnectionInput, SyncConnectionResult } from '../workflows/contract';

/** What the connection activities need from src/ (ConnectionSyncService fits). */
export interface ConnectionSync {
  announce(connection: ConnectionIdentity): Promise<'announced' | 'gone'>;
  end(connectionId: string): Promise<void>;
  sync(input: SyncConnectionInput): Promise<SyncConnectionResult>;
}

/**
 * Thin and idempotent: the announcement's event id is derived from the connection, and a
 * repeated sync stores the same samples and summaries again under the same keys (the latest
 * value wins), so a step a killed worker left half-done is simply run again. Each heartbeats
 * while it runs (a sync may read a provider for minutes), so a killed worker's step is run again
 * after the heartbeat timeout rather than the step's whole timeout.
 */
export function createConnectionActivities(connections: ConnectionSync): ConnectionActivities {
  return {
    announceConnection: (connection) => whileBeating(() => connections.announce(connection)),
    endConnection: ({ connectionId }) => whileBeating(() => connections.end(connectionId)),
    syncConnection: (input) => whileBeating(() => connections.sync(input)),
  };
}
