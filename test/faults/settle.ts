/**
 * The wait after the faults, bounded: until every order is terminal, every outbox event delivered,
 * the Link Migration done and the HL7 labs' schedule run, or FAULTS_DEADLINE_SECONDS from t = 0,
 * or FAULTS_QUIET_SECONDS without any progress (what finds a stranded order).
 */
import type { DataSource } from 'typeorm';
import type { WebhookReceiver } from '../helpers/webhook-receiver';
import { type Hl7Setup, hl7Schedule } from './hl7-faults';
import { http, pool } from './http';
import { clock, log } from './log';
import { apiFor, sleepUnlessAborted, stopping } from './processes';
import { DEADLINE_S, MIGRATED_USERS, QUIET_S } from './settings';
import { isTerminal, type RunOrder, type Tenant } from './team';

/** Why the wait stopped; null when the run is being stopped (Ctrl-C). */
export async function settle(db: DataSource, tenant: Tenant, orders: RunOrder[], receiver: WebhookReceiver, hl7: Hl7Setup | null): Promise<string | null> {
  const deadline = clock.t0 + DEADLINE_S * 1000;
  let lastChange = Date.now();
  let lastSignature = '';
  let lastReport = 0;
  // Besides the events: the Link Migration operations ended, and each migrated connection's two
  // backfills (its first, and the bulk pull's) sent their historical.data.sleep.created.
  const pendingEvents = async (): Promise<{ unrelayed: number; pending: number; migrating: number }> => {
    const [row] = await db.query(
      `SELECT (SELECT count(*) FROM event_outbox WHERE team_id = $1 AND relayed_at IS NULL)::int AS unrelayed,
              (SELECT count(*) FROM event_deliveries WHERE team_id = $1 AND status = 'pending')::int AS pending,
              ((SELECT count(*) FROM link_bulk_ops WHERE team_id = $1 AND status = 'in_progress')
                + greatest(0, $2 - (SELECT count(*) FROM event_outbox WHERE team_id = $1 AND event_type = 'historical.data.sleep.created')))::int AS migrating`,
      [tenant.teamId, 2 * MIGRATED_USERS],
    );
    return row;
  };
  for (;;) {
    await pool(
      orders.filter((order) => !isTerminal(order)),
      10,
      async (order, index) => {
        try {
          const reply = await http(apiFor(index), 'GET', `/v3/order/${order.id}`, { key: tenant.apiKey });
          if (reply.status === 200) order.view = reply.body;
        } catch {
          // the API may be restarting; the next round reads it again
        }
      },
    );
    const events = await pendingEvents().catch(() => ({ unrelayed: -1, pending: -1, migrating: -1 }));
    const terminal = orders.filter(isTerminal).length;
    const hl7Progress = hl7
      ? [hl7.scripted.received.length, hl7.scripted.sends.filter((send) => send.acked).length, hl7.scripted.sends.length, hl7Schedule.done]
      : [];
    const signature = JSON.stringify([orders.map((order) => order.view?.last_event?.id), receiver.requests.length, events, hl7Progress]);
    if (signature !== lastSignature) {
      lastSignature = signature;
      lastChange = Date.now();
    }
    if (Date.now() - lastReport > 15_000) {
      lastReport = Date.now();
      log(
        `terminal ${terminal}/${orders.length} (completed ${orders.filter((order) => order.view?.status === 'completed').length}); ` +
          `webhook requests ${receiver.requests.length}; outbox unrelayed ${events.unrelayed}, deliveries pending ${events.pending}; Link Migration still to go ${events.migrating}`,
      );
    }
    const hl7Busy = hl7 !== null && (!hl7Schedule.done || hl7.scripted.pending > 0);
    if (terminal === orders.length && events.unrelayed === 0 && events.pending === 0 && events.migrating === 0 && !hl7Busy) {
      return 'every order terminal and every event delivered';
    }
    if (Date.now() > deadline) {
      return `deadline (${DEADLINE_S} s after the simulations started)`;
    }
    // A lab still down is a fault still scheduled, not a standstill.
    if (Date.now() - lastChange > QUIET_S * 1000 && hl7Schedule.done) {
      return `no progress for ${QUIET_S} s`;
    }
    if (stopping.now) return null;
    await sleepUnlessAborted(3000);
  }
}
