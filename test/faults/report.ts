/**
 * What the fault run prints before its checks: a table per collection method, the webhooks, each
 * order's path of statuses, the faults as applied, and every stranded order explained from its
 * workflow's history, the reconciler's rows and the Temporal CLI (what ops would run).
 */
import { type Client, WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { DataSource } from 'typeorm';
import type { Evidence } from './evidence';
import { allProcesses, temporalCli } from './processes';
import type { FaultOutcome } from './schedule';
import { config, GROUPS } from './settings';
import { isTerminal, low, type OrderEvent, type RunOrder, type Tenant } from './team';

/** Prints the run's report; returns the stranded orders (not terminal when the wait ended). */
export async function report(
  db: DataSource,
  client: Client,
  tenant: Tenant,
  orders: RunOrder[],
  evidence: Evidence,
  faultOutcomes: FaultOutcome[],
): Promise<RunOrder[]> {
  const { workflowStatus, outbox, deliveries, requests, firstById, failedAttempts } = evidence;
  const rows: string[] = [];
  const stranded: RunOrder[] = [];
  for (const method of GROUPS) {
    const ofMethod = orders.filter((order) => order.method === method);
    const completed = ofMethod.filter((order) => order.view?.status === 'completed');
    // Stranded: not terminal when the wait ended (whether its workflow still runs or has closed).
    const strandedHere = ofMethod.filter((order) => !isTerminal(order));
    stranded.push(...strandedHere);
    const otherTerminal = ofMethod.filter((order) => isTerminal(order) && order.view?.status !== 'completed');
    const closedNotTerminal = strandedHere.filter((order) => workflowStatus.get(order.id) !== 'RUNNING').length;
    rows.push(
      `${method.padEnd(20)} ${String(ofMethod.length).padStart(6)} ${String(completed.length).padStart(10)} ${String(strandedHere.length).padStart(9)} ` +
        `${String(closedNotTerminal).padStart(15)} ${String(otherTerminal.length).padStart(15)}`,
    );
  }
  console.log('');
  console.log(
    `${'collection method'.padEnd(20)} ${'orders'.padStart(6)} ${'completed'.padStart(10)} ${'stranded'.padStart(9)} ${'(wf closed)'.padStart(15)} ${'other terminal'.padStart(15)}`,
  );
  for (const row of rows) console.log(row);
  console.log(
    `${'all'.padEnd(20)} ${String(orders.length).padStart(6)} ${String(orders.filter((order) => order.view?.status === 'completed').length).padStart(10)} ${String(stranded.length).padStart(9)}`,
  );
  console.log('');
  console.log(
    `webhooks: ${requests.length} requests, ${firstById.size} distinct webhook ids, ${failedAttempts} answered 500 on purpose; ` +
      `outbox ${outbox.length} events; deliveries ${deliveries.length} (${deliveries.filter((d) => d.status === 'succeeded').length} succeeded, ` +
      `${deliveries.filter((d) => d.status === 'pending').length} pending, ${deliveries.filter((d) => d.status === 'exhausted').length} exhausted)`,
  );
  const paths = new Map<string, number>();
  for (const order of orders) {
    const key = `${order.method}: ${((order.view?.events ?? []) as OrderEvent[]).map((event) => low(event.status)).join(' > ')}`;
    paths.set(key, (paths.get(key) ?? 0) + 1);
  }
  console.log('order paths (low-level statuses):');
  for (const [path, count] of [...paths].sort()) console.log(`  ${String(count).padStart(3)} x ${path}`);
  console.log('faults:');
  for (const outcome of faultOutcomes)
    console.log(`  +${outcome.atActual.toFixed(1)}s ${outcome.fault.what}${outcome.ok ? '' : ` (FAILED: ${outcome.error})`}`);
  for (const proc of allProcesses) {
    if (proc.unexpectedExits) console.log(`  ${proc.name} also exited on its own ${proc.unexpectedExits} time(s) and was restarted`);
  }

  // --- the stranded ones, explained from their workflow histories --------------------------------------
  if (stranded.length) {
    console.log('');
    console.log(`stranded orders (${stranded.length}):`);
    for (const order of stranded) console.log(await explain(client, order, workflowStatus.get(order.id) ?? '?'));
    // What the reconciler recorded about them (the stranded_orders table, where it exists).
    const [{ present }] = await db.query(`SELECT to_regclass('stranded_orders') IS NOT NULL AS present`);
    if (present) {
      const raised: Array<{ order_id: string; kind: string; state: string; heal_attempts: number; detail: string }> = await db.query(
        `SELECT order_id, kind, state, heal_attempts, detail FROM stranded_orders WHERE team_id = $1 ORDER BY created_at`,
        [tenant.teamId],
      );
      const strandedIds = new Set(stranded.map((order) => order.id));
      console.log('');
      console.log(
        `reconciler (stranded_orders): ${raised.length} row(s) for this team; ${stranded.filter((order) => !raised.some((row) => row.order_id === order.id)).length} stranded order(s) without one`,
      );
      for (const row of raised) {
        console.log(
          `  ${row.order_id}${strandedIds.has(row.order_id) ? ' (stranded)' : ''}: ${row.kind}/${row.state}, heal attempts ${row.heal_attempts}: ${row.detail.slice(0, 200)}`,
        );
      }
    }
    // The same, as the Temporal CLI shows it (what ops would run).
    const cliArgs = ['--address', config.temporal.address, '--namespace', config.temporal.namespace];
    console.log('');
    console.log(`$ temporal workflow count ${cliArgs.join(' ')} --query "GROUP BY ExecutionStatus"`);
    console.log(await temporalCli(['workflow', 'count', ...cliArgs, '--query', 'GROUP BY ExecutionStatus']));
    console.log(`$ temporal workflow list ${cliArgs.join(' ')} --query "ExecutionStatus != 'Completed'" --limit 30`);
    console.log(await temporalCli(['workflow', 'list', ...cliArgs, '--query', "ExecutionStatus != 'Completed'", '--limit', '30']));
  }

  return stranded;
}

/** One stranded order: what the API says, what Temporal says, and the tail of its history. */
async function explain(client: Client, order: RunOrder, status: string): Promise<string> {
  const lines = [`  ${order.method} ${order.id}: order ${order.view?.status} / ${order.view?.last_event?.status}; workflow order:${order.id} ${status}`];
  const handle = client.workflow.getHandle(`order:${order.id}`);
  if (status === 'FAILED' || status === 'TERMINATED' || status === 'TIMED_OUT' || status === 'CANCELED') {
    try {
      await handle.result();
    } catch (error) {
      const cause = error instanceof WorkflowFailedError ? error.cause : error;
      lines.push(`    failure: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`);
    }
  }
  try {
    const description = await handle.describe();
    for (const activity of description.raw.pendingActivities ?? []) {
      lines.push(`    pending activity ${activity.activityType?.name} (attempt ${activity.attempt}, state ${activity.state})`);
    }
    for (const child of description.raw.pendingChildren ?? []) lines.push(`    pending child ${child.workflowId} (${child.workflowTypeName})`);
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    const tail = events.slice(-14).map((event) => {
      const type = temporal.api.enums.v1.EventType[event.eventType ?? 0]?.replace(/^EVENT_TYPE_/, '') ?? String(event.eventType);
      const detail =
        event.workflowExecutionSignaledEventAttributes?.signalName ??
        event.activityTaskScheduledEventAttributes?.activityType?.name ??
        event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ??
        event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
        event.timerStartedEventAttributes?.timerId ??
        '';
      return `${event.eventId} ${type}${detail ? `(${detail})` : ''}`;
    });
    lines.push(`    history (${events.length} events), last: ${tail.join(', ')}`);
  } catch (error) {
    lines.push(`    history unavailable: ${String(error)}`);
  }
  return lines.join('\n');
}
