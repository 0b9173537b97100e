import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { hl7Metrics } from './hl7-metrics';
import { Hl7Repository, type NewInboundMessage, type StoredInbound } from './hl7.repository';

type Stored = { stored: boolean; message: StoredInbound };

/** Rows written in one statement at most. */
const MAX_ROWS = 100;

/**
 * Stores the listener's inbound messages with group commit, one INSERT in flight: the messages
 * that arrive while it is in flight go together in the next INSERT and commit, sent as soon as it
 * commits. A message that finds no INSERT in flight waits for the end of the event loop's turn
 * (setImmediate), so the messages read from every connection in that turn share one INSERT.
 * Each caller resolves once its row has committed (the ACK may go out) or rejects when the write
 * failed (nothing of that batch was written: one statement). A second INSERT in flight would only
 * split the same messages over more statements and commits: the senders wait for their ACKs, so
 * no more messages arrive for it.
 */
@Injectable()
export class Hl7InboundStore {
  private waiting: Array<{ row: NewInboundMessage; since: number; resolve: (stored: Stored) => void; reject: (error: unknown) => void }> = [];
  /** An INSERT in flight, or one due at the end of this turn. */
  private busy = false;

  constructor(private readonly repository: Hl7Repository) {}

  store(row: NewInboundMessage): Promise<Stored> {
    return new Promise<Stored>((resolve, reject) => {
      this.waiting.push({ row, since: performance.now(), resolve, reject });
      if (!this.busy) {
        this.busy = true;
        setImmediate(() => void this.write());
      }
    });
  }

  private async write(): Promise<void> {
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
      this.busy = false;
    }
  }
}
