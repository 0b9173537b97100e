import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { hl7Metrics } from './hl7-metrics';
import { Hl7Repository, type NewInboundMessage, type StoredInbound } from './hl7.repository';

type Stored = { stored: boolean; message: StoredInbound };

/** Rows written in one statement at most. */
const MAX_ROWS = 100;
/** Statements in flight at once (each on a pooled connection; Postgres flushes their commits together). */
const MAX_WRITES = 2;

/**
 * Stores the listener's inbound messages with group commit: a message that arrives while writes
 * are in flight (up to MAX_WRITES) waits for a free one and goes with the others that waited, in
 * one INSERT and one commit. Each caller resolves once its row has committed (the ACK may go out)
 * or rejects when the write failed (nothing of that batch was written: one statement). A lone
 * message is written at once.
 */
@Injectable()
export class Hl7InboundStore {
  private waiting: Array<{ row: NewInboundMessage; since: number; resolve: (stored: Stored) => void; reject: (error: unknown) => void }> = [];
  private writes = 0;

  constructor(private readonly repository: Hl7Repository) {}

  store(row: NewInboundMessage): Promise<Stored> {
    return new Promise<Stored>((resolve, reject) => {
      this.waiting.push({ row, since: performance.now(), resolve, reject });
      if (this.writes < MAX_WRITES) void this.write();
    });
  }

  private async write(): Promise<void> {
    this.writes += 1;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_ROWS);
        try {
          const sent = performance.now();
          const stored = await this.repository.storeInbound(batch.map((entry) => entry.row));
          hl7Metrics.stored(
            batch.map((entry) => (sent - entry.since) / 1000),
            (performance.now() - sent) / 1000,
          );
          batch.forEach((entry, index) => entry.resolve(stored[index]));
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.writes -= 1;
    }
  }
}
