import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { PhiAccessLogEntity } from './phi-access-log.entity';
import { runPrepared } from './prepared-statement';

/** Who touched PHI, for the audit trail (one phi_access_log row per resource read or written). */
export interface PhiAccess {
  teamId: string;
  apiKeyId: string | null;
}

/**
 * Writes the audit rows of a PHI read or write of `resourceIds` (of kind `resource`: 'order',
 * 'insurance') on the caller's transaction, so the audit commits with the access. The one writer
 * of phi_access_log for every module (PhiReadAudit below and order creation's single statement
 * aside).
 */
export async function logPhiAccess(manager: EntityManager, by: PhiAccess, action: 'read' | 'write', resource: string, resourceIds: string[]): Promise<void> {
  if (resourceIds.length === 0) return;
  await manager
    .getRepository(PhiAccessLogEntity)
    .insert(resourceIds.map((resourceId) => ({ teamId: by.teamId, apiKeyId: by.apiKeyId, action, resource, resourceId })));
}

/** The rows of one PhiReadAudit flush, one array per column (unnest zips them). */
const INSERT_READS = {
  name: 'labflow_phi_read_audit',
  text: `INSERT INTO phi_access_log (team_id, api_key_id, action, resource, resource_id)
    SELECT t, k, 'read', r, i FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[]) AS u(t, k, r, i)`,
};

/** Rows per INSERT at most; more wait for the next one. */
const MAX_BATCH = 500;

interface PendingRead {
  by: PhiAccess;
  resource: string;
  resourceId: string;
  done: (error?: unknown) => void;
}

/**
 * The audit rows of the hottest PHI read (`GET /v3/order/{id}`), written by group commit: a read
 * asks `record` and answers only when its row has committed, so no PHI reaches a caller unaudited,
 * and a failed insert fails the read (500), as when the row was written by the read's own
 * statement. What changes is the cost: one INSERT and one commit (one WAL flush) for every read
 * that arrived while the previous INSERT ran, instead of a write transaction per read. Under load
 * that was most of Postgres' CPU per order read (pgbench, this statement alone: 110 µs with the
 * insert, 45 µs without; a batched row ~5 µs). A process that dies before a row commits has not
 * answered that read: nothing is lost that a caller saw. Nothing waits for a timer: the first
 * read starts an INSERT at once, the ones behind it form the next.
 */
@Injectable()
export class PhiReadAudit {
  private queue: PendingRead[] = [];
  private writing = false;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Resolves once the read's row has committed; rejects when its INSERT failed. */
  record(by: PhiAccess, resource: string, resourceId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ by, resource, resourceId, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await runPrepared(this.db, INSERT_READS.name, INSERT_READS.text, [
            batch.map((read) => read.by.teamId),
            batch.map((read) => read.by.apiKeyId),
            batch.map((read) => read.resource),
            batch.map((read) => read.resourceId),
          ]);
          for (const read of batch) read.done();
        } catch (error) {
          for (const read of batch) read.done(error ?? new Error('PHI read audit failed'));
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
