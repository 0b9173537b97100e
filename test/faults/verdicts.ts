/**
 * The fault run's checks on what it gathered: the run applied as planned, no order stranded or
 * completed twice, no event lost, the Link Migration done once per user, each lost workflow healed
 * once.
 */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Evidence } from './evidence';
import type { Reply } from './http';
import { check } from './log';
import type { FaultOutcome } from './schedule';
import { GROUPS, MIGRATED_USERS, REPLICAS, REVOCATION_BOUND_MS, SIMULATION_DELAY_S } from './settings';
import { low, type OrderEvent, revokedKeyRefusals, type RunOrder, type Tenant } from './team';

/** Every simulation accepted, every fault applied, every webhook signed. */
export function checkRunApplied(refused: Array<{ order: RunOrder; reply: Reply }>, faultOutcomes: FaultOutcome[], evidence: Evidence): void {
  const { requests } = evidence;
  check(
    `every simulation accepted (POST /v3/order/{id}/test?delay=${SIMULATION_DELAY_S} answered 200)`,
    refused.length === 0,
    refused
      .slice(0, 3)
      .map(({ order, reply }) => `${order.id}: ${reply.status} ${JSON.stringify(reply.body)}`)
      .join('; '),
  );
  check(
    'every fault applied on schedule',
    faultOutcomes.every((outcome) => outcome.ok),
    faultOutcomes
      .filter((o) => !o.ok)
      .map((o) => `${o.fault.what}: ${o.error}`)
      .join('; '),
  );
  const unverified = requests.filter((request) => !request.verified);
  check(
    'every webhook request carries a valid signature (svix and standardwebhooks)',
    unverified.length === 0,
    `${unverified.length} not verified, e.g. ${unverified[0]?.verifyError}`,
  );
}

/**
 * Per collection method: none stranded, every order completed, no transition twice (event ids
 * unique; the order.updated webhooks and outbox rows are the order's events after the first, each
 * once), no event of its orders lost.
 */
export function checkOrders(orders: RunOrder[], stranded: RunOrder[], evidence: Evidence): void {
  const { workflowStatus, outbox, firstById, accepted } = evidence;
  const outboxByOrder = new Map<string, typeof outbox>();
  for (const row of outbox) {
    const orderId = row.event_type.startsWith('labtest.order.') ? (row.data?.id as string) : ((row.data?.order_id as string) ?? row.subject_id ?? '');
    outboxByOrder.set(orderId, [...(outboxByOrder.get(orderId) ?? []), row]);
  }
  const webhooksByOrder = new Map<string, any[]>();
  for (const request of firstById.values()) {
    const json = request.json;
    if (!json?.event_type?.startsWith('labtest.order.')) continue;
    const orderId = json.data?.id as string;
    webhooksByOrder.set(orderId, [...(webhooksByOrder.get(orderId) ?? []), json]);
  }

  for (const method of GROUPS) {
    const ofMethod = orders.filter((order) => order.method === method);
    const strandedHere = stranded.filter((order) => order.method === method);
    check(
      `${method}: stranded = 0`,
      strandedHere.length === 0,
      `${strandedHere.length} stranded: ${strandedHere.map((order) => `${order.id} (${order.view?.last_event?.status ?? '?'}, workflow ${workflowStatus.get(order.id)})`).join(', ')}`,
    );
    const notCompleted = ofMethod.filter((order) => order.view?.status !== 'completed');
    check(
      `${method}: every order completed`,
      notCompleted.length === 0,
      `${ofMethod.length - notCompleted.length}/${ofMethod.length} completed; not: ${notCompleted.map((order) => `${order.id} ${order.view?.last_event?.status ?? '?'}`).join(', ')}`,
    );

    // No transition twice: event ids unique; the order.updated webhooks and outbox rows are the
    // order's events after the first, each once.
    const problems: string[] = [];
    const outboxProblems: string[] = [];
    const lostHere: string[] = [];
    for (const order of ofMethod) {
      const events: OrderEvent[] = order.view?.events ?? [];
      const ids = events.map((event) => event.id);
      if (new Set(ids).size !== ids.length) problems.push(`${order.id}: event ids repeat (${ids.join(',')})`);
      const expected = events.slice(1).map((event) => `${event.id}:${event.status}`);
      const hooks = webhooksByOrder.get(order.id) ?? [];
      const created = hooks.filter((hook) => hook.event_type === 'labtest.order.created');
      const updated = hooks
        .filter((hook) => hook.event_type === 'labtest.order.updated')
        .map((hook) => hook.data?.last_event as OrderEvent)
        .sort((a, b) => a.id - b.id)
        .map((event) => `${event.id}:${event.status}`);
      if (created.length !== 1) problems.push(`${order.id}: ${created.length} labtest.order.created webhooks`);
      if (JSON.stringify(updated) !== JSON.stringify(expected)) {
        problems.push(`${order.id}: labtest.order.updated webhooks [${updated.map(low).join(' ')}] vs events after the first [${expected.map(low).join(' ')}]`);
      }
      const rowsOfOrder = outboxByOrder.get(order.id) ?? [];
      const outboxUpdated = rowsOfOrder
        .filter((row) => row.event_type === 'labtest.order.updated')
        .map((row) => row.data?.last_event as OrderEvent)
        .sort((a, b) => a.id - b.id)
        .map((event) => `${event.id}:${event.status}`);
      if (JSON.stringify(outboxUpdated) !== JSON.stringify(expected)) {
        outboxProblems.push(`${order.id}: outbox [${outboxUpdated.map(low).join(' ')}] vs events after the first [${expected.map(low).join(' ')}]`);
      }
      for (const row of rowsOfOrder) if (!accepted.has(row.id)) lostHere.push(`${order.id}: ${row.event_type} ${row.id}`);
    }
    check(
      `${method}: no transition twice (event ids unique; order webhooks = events after the first, each once, in order)`,
      problems.length === 0,
      `${problems.length} order(s): ${problems.slice(0, 5).join('; ')}`,
    );
    check(
      `${method}: outbox labtest.order.updated rows = events after the first, each once`,
      outboxProblems.length === 0,
      `${outboxProblems.length} order(s): ${outboxProblems.slice(0, 5).join('; ')}`,
    );
    check(
      `${method}: no event lost (every outbox event of its orders answered 2xx by the receiver)`,
      lostHere.length === 0,
      `${lostHere.length} lost: ${lostHere.slice(0, 5).join('; ')}`,
    );
  }
}

/**
 * Link Migration under the faults: both operations ended, every user processed once; each migrated
 * user has one connection, announced once, and its history sent twice (first backfill, bulk pull),
 * each delivered under one webhook id.
 */
export async function checkMigration(db: DataSource, tenant: Tenant, migrated: string[], pull: Reply, evidence: Evidence): Promise<void> {
  const { outbox, firstById, accepted } = evidence;
  check(
    `bulk historical pull accepted (POST /v2/link/bulk_trigger_historical_pull answered 202)`,
    pull.status === 202,
    `${pull.status} ${JSON.stringify(pull.body)}`,
  );
  const ops: Array<{ type: string; status: string; done: number; failed: number; pending: number }> = await db.query(
    `SELECT o.type, o.status,
            count(*) FILTER (WHERE i.outcome = 'done')::int AS done, count(*) FILTER (WHERE i.outcome = 'failed')::int AS failed,
            count(*) FILTER (WHERE i.outcome IS NULL)::int AS pending
       FROM link_bulk_ops o JOIN link_bulk_op_items i ON i.op_id = o.id WHERE o.team_id = $1 GROUP BY o.id ORDER BY o.started_at`,
    [tenant.teamId],
  );
  check(
    `Link Migration: the import and the historical pull each ended success with all ${MIGRATED_USERS} users done, none failed or left`,
    ops.length === 2 && ops.every((op) => op.status === 'success' && op.done === MIGRATED_USERS && op.failed === 0 && op.pending === 0),
    JSON.stringify(ops),
  );
  const connections: Array<{ user_id: string; n: number }> = await db.query(
    `SELECT user_id, count(*)::int AS n FROM provider_connections WHERE team_id = $1 AND provider = 'oura' GROUP BY user_id`,
    [tenant.teamId],
  );
  const migrationProblems: string[] = [];
  for (const userId of migrated) {
    const n = connections.find((row) => row.user_id === userId)?.n ?? 0;
    if (n !== 1) migrationProblems.push(`${userId}: ${n} connections`);
    const hooks = (type: string) => [...firstById.values()].filter((request) => request.json?.event_type === type && request.json?.user_id === userId);
    const created = hooks('provider.connection.created');
    const historical = hooks('historical.data.sleep.created');
    if (created.length !== 1) migrationProblems.push(`${userId}: ${created.length} provider.connection.created`);
    if (historical.length !== 2) migrationProblems.push(`${userId}: ${historical.length} historical.data.sleep.created`);
    const lostHooks = outbox.filter((row) => row.user_id === userId && !accepted.has(row.id));
    if (lostHooks.length > 0) migrationProblems.push(`${userId}: ${lostHooks.length} events not delivered (${lostHooks[0].event_type})`);
  }
  check(
    'each migrated user: one Oura connection, one provider.connection.created, historical.data.sleep.created once per backfill (2), every event delivered',
    migrationProblems.length === 0,
    `${migrationProblems.length} problem(s): ${migrationProblems.slice(0, 5).join('; ')}`,
  );
}

/** The lost workflows: healed once each, though every worker runs a reconciler. */
export async function checkHeals(db: DataSource, client: Client, lost: RunOrder[]): Promise<void> {
  const healProblems: string[] = [];
  for (const order of lost) {
    const runs: string[] = [];
    for await (const run of client.workflow.list({ query: `WorkflowId = 'order:${order.id}'` })) runs.push(run.runId);
    const [row]: Array<{ heal_attempts: number } | undefined> = await db.query(
      `SELECT heal_attempts FROM stranded_orders WHERE order_id = $1 AND kind = 'closed'`,
      [order.id],
    );
    if (runs.length !== 2 || row?.heal_attempts !== 1) healProblems.push(`${order.id}: ${runs.length} runs, heal_attempts ${row?.heal_attempts ?? 'no row'}`);
  }
  check(
    `each lost workflow healed exactly once by the ${REPLICAS} worker(s)' reconcilers (2 runs, heal_attempts 1)`,
    healProblems.length === 0,
    healProblems.join('; '),
  );
}

/** A key revoked through the management API is refused by every API replica at once. */
export async function checkRevocation(tenant: Tenant): Promise<void> {
  const revocation = await revokedKeyRefusals(tenant);
  check(
    `a revoked key is refused by all ${REPLICAS} API replica(s) within ${REVOCATION_BOUND_MS} ms of the revocation (${revocation.map((r) => `${r.api}: ${r.ms === null ? 'still accepted' : `${r.ms} ms`}`).join(', ')})`,
    revocation.every((r) => r.ms !== null && r.accepted),
    revocation.map((r) => `${r.api}: ${r.detail}`).join('; '),
  );
}

/** Every event of the team answered 2xx at least once. */
export function checkNoEventLost(evidence: Evidence): void {
  const { outbox, accepted } = evidence;
  const lostAny = outbox.filter((row) => !accepted.has(row.id));
  const orderEventCount = outbox.filter((row) => row.event_type.startsWith('labtest.order.')).length;
  check(
    `no event of the team lost (all ${outbox.length} outbox events: ${orderEventCount} order, ${outbox.length - orderEventCount} appointment/other; each answered 2xx at least once)`,
    lostAny.length === 0,
    `${lostAny.length} never accepted: ${lostAny
      .slice(0, 5)
      .map((row) => `${row.event_type} ${row.id}`)
      .join('; ')}`,
  );
}
