/**
 * The HL7 labs of the fault run: two HL7 lab accounts at the on-site CMP's lab, one pointing at the
 * runner's scripted lab (./hl7-lab.ts), one at the sandbox HL7 lab (worker role sandbox-hl7-lab);
 * their faults beside the main schedule, and their checks.
 */
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Hl7Repository } from '../../src/hl7/hl7.repository';
import { hl7InterfaceSettings } from '../../src/hl7/hl7-settings';
import { finalValue, type LabMarker, ScriptedHl7Lab } from './hl7-lab';
import { http, pool, type Reply } from './http';
import { check, clock, log, sinceT0 } from './log';
import { apiFor, hl7ListenerProcess, onShutdown, sandboxHl7LabProcess, sleepUnlessAborted, stopping } from './processes';
import {
  API,
  CMP_ON_SITE_QUEST,
  HL7,
  HL7_GROUPS,
  HL7_LAB_DOWN_S,
  HL7_LAB_PORT,
  HL7_LISTENER_DOWN_S,
  HL7_LISTENER_PORT,
  HL7_ORDERS,
  HL7_STRAYS,
  SANDBOX_HL7_LAB_PORT,
} from './settings';
import { isTerminal, low, type OrderEvent, orderBody, type RunOrder, type Tenant } from './team';

/** What the log of each HL7 process says once it serves. */
export const HL7_LISTENING = /HL7 MLLP listener on/;
export const SANDBOX_HL7_LAB_LISTENING = /sandbox HL7 lab on port/;
export interface Hl7Setup {
  orders: RunOrder[];
  scripted: ScriptedHl7Lab;
  /** The scripted lab's facility (MSH-4 of what it sends). */
  scriptedFacility: string;
  components: LabMarker[];
  placedAt: number;
}

export interface Hl7FaultOutcome {
  what: string;
  ok: boolean;
  atActual: number;
  error?: string;
}

/** Progress of the HL7 fault schedule: the wait does not give up while it still has steps to take. */
export const hl7Schedule = { done: !HL7, listenerKilledWithPending: 0, failuresBeforeKill: 0, failuresAfterBack: 0, sandboxKilledOwing: 0 };

/**
 * Two HL7 lab accounts at the on-site CMP's lab: one pointing at the runner's scripted lab, one at
 * the sandbox HL7 lab. Both labs are down when their orders are placed: the scripted lab does not
 * listen yet, the sandbox lab's process is SIGKILLed first. The orders' sends then wait (retried).
 */
export async function setUpHl7(db: DataSource, tenant: Tenant): Promise<Hl7Setup> {
  const [test]: Array<{ lab_id: string }> = await db.query(`SELECT lab_id FROM lab_tests WHERE id = $1`, [CMP_ON_SITE_QUEST]);
  const [{ marker_id: panelId }]: Array<{ marker_id: number }> = await db.query(
    `SELECT marker_id FROM lab_test_markers WHERE lab_test_id = $1 ORDER BY position LIMIT 1`,
    [CMP_ON_SITE_QUEST],
  );
  const components: LabMarker[] = await db.query(
    `SELECT m.name, m.slug, l.code AS loinc FROM lab_panel_members p JOIN lab_markers m ON m.id = p.member_id JOIN loinc_codes l ON l.id = m.loinc_id
      WHERE p.panel_id = $1 ORDER BY p.position`,
    [panelId],
  );
  const repository = new Hl7Repository(db);
  const accounts = new Map<(typeof HL7_GROUPS)[number], { id: string; facility: string }>();
  for (const group of HL7_GROUPS) {
    const id = randomUUID();
    const scripted = group === 'hl7_lab';
    const facility = `${scripted ? 'SCR' : 'SBX'}-${id.slice(0, 8)}`;
    await db.query(
      `INSERT INTO lab_accounts (id, team_id, environment, lab_id, status, delegated_flow, provider_account_id, account_name, allowed_billing, team_id_allowlist)
       VALUES ($1, $2, NULL, $3, 'active', 'not_delegated', $4, $5, '{client_bill}', '{}')`,
      [id, tenant.teamId, test.lab_id, `${facility}-ACCT`, scripted ? 'Scripted lab over HL7' : 'Sandbox lab over HL7'],
    );
    await repository.saveInterface(
      id,
      hl7InterfaceSettings.parse({
        host: '127.0.0.1',
        port: scripted ? HL7_LAB_PORT : SANDBOX_HL7_LAB_PORT,
        sendingApplication: 'LABFLOW',
        sendingFacility: 'LABFLOW-FAULTS',
        receivingApplication: scripted ? 'SCRIPTED' : 'SANDBOX',
        receivingFacility: facility,
        version: scripted ? '2.3' : '2.5.1',
        orderMessageType: scripted ? 'ORM^O01' : 'OML^O21',
        testCodes: {},
      }),
    );
    accounts.set(group, { id, facility });
  }
  const scriptedLab = new ScriptedHl7Lab({
    port: HL7_LAB_PORT,
    listener: { host: '127.0.0.1', port: HL7_LISTENER_PORT },
    facility: accounts.get('hl7_lab')!.facility,
    markers: components,
    strays: HL7_STRAYS,
    log,
  });
  onShutdown(() => scriptedLab.close());
  await sandboxHl7LabProcess.kill('SIGKILL');
  log(`HL7 labs down: the scripted lab does not listen on :${HL7_LAB_PORT}, the sandbox HL7 lab process is killed`);

  const plan = HL7_GROUPS.flatMap((group) => Array.from({ length: HL7_ORDERS }, () => group));
  const placedAt = Date.now();
  const orders = await pool(plan, 10, async (group, index): Promise<RunOrder> => {
    const API = apiFor(index);
    try {
      const user = await http(API, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `faults-hl7-${randomUUID()}` } });
      if (user.status !== 200) throw new Error(`POST /v2/user: ${user.status} ${JSON.stringify(user.body)}`);
      const body = { ...orderBody('on_site_collection', user.body.user_id as string), lab_account_id: accounts.get(group)!.id };
      const created = await http(API, 'POST', '/v3/order', { key: tenant.apiKey, body });
      if (created.status !== 200) throw new Error(`POST /v3/order: ${created.status} ${JSON.stringify(created.body)}`);
      return { id: created.body.order.id as string, method: group, view: created.body.order, error: null };
    } catch (error) {
      return { id: '', method: group, view: null, error: String(error) };
    }
  });
  scriptedLab.expect(orders.filter((order) => order.method === 'hl7_lab').map((order) => order.id));
  return { orders, scripted: scriptedLab, scriptedFacility: accounts.get('hl7_lab')!.facility, components, placedAt };
}

/**
 * The staff of the on-site collection report each HL7 order's draw once it waits for it (a draw
 * reported earlier is refused with 400, and asked again), bounded by the run's deadline.
 */
export async function reportDraws(orders: RunOrder[], tenant: Tenant, deadline: number): Promise<void> {
  await Promise.all(
    orders.map(async (order, index) => {
      while (!stopping.now && Date.now() < deadline && !isTerminal(order)) {
        const reply = await http(apiFor(index), 'PATCH', `/v3/order/${order.id}/draw_completed`, { key: tenant.apiKey }).catch(() => null);
        if (reply?.status === 200) return;
        await sleepUnlessAborted(2000);
      }
    }),
  );
}

/** Waits until `ready()` or `timeoutMs`; false on the timeout. */
async function until(ready: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline || stopping.now) return false;
    await sleepUnlessAborted(200);
  }
  return true;
}

/**
 * The HL7 faults, beside the main schedule: the scripted lab comes back HL7_LAB_DOWN_S after its
 * orders were placed; labflow's listener is SIGKILLed while the scripted lab sends results (a
 * quarter of them ACKed, more queued) and restarted HL7_LISTENER_DOWN_S later; the sandbox lab's
 * process comes back once the scripted lab has sent everything and Temporal is up again, and is
 * SIGKILLed again once it took orders whose results it still owes (held in its outbox,
 * sandbox_hl7_lab_outbox), then restarted HL7_LISTENER_DOWN_S later: it sends what it owed.
 */
export async function runHl7Faults(setup: Hl7Setup, db: DataSource): Promise<Hl7FaultOutcome[]> {
  const outcomes: Hl7FaultOutcome[] = [];
  const step = async (what: string, run: () => Promise<void>) => {
    const atActual = sinceT0();
    log(`fault: ${what}`);
    try {
      await run();
      outcomes.push({ what, ok: true, atActual });
    } catch (error) {
      log(`fault "${what}" failed: ${String(error)}`);
      outcomes.push({ what, ok: false, atActual, error: String(error) });
    }
  };
  const { scripted } = setup;
  try {
    await sleepUnlessAborted(setup.placedAt + HL7_LAB_DOWN_S * 1000 - Date.now());
    if (stopping.now) return outcomes;
    await step(`scripted HL7 lab back (down ${HL7_LAB_DOWN_S} s from its orders' placement)`, () => scripted.comeBack());

    const expected = HL7_STRAYS + 3 * HL7_ORDERS;
    const sending = await until(() => scripted.sends.filter((send) => send.acked).length >= Math.ceil(expected / 4) && scripted.pending >= 3, 240_000);
    await step(`hl7-listener SIGKILL (the scripted lab sending: ${scripted.pending} results to go)`, async () => {
      if (!sending) throw new Error(`the scripted lab never had results in flight (${scripted.sends.length} queued, ${scripted.pending} pending)`);
      hl7Schedule.listenerKilledWithPending = scripted.pending;
      hl7Schedule.failuresBeforeKill = scripted.sends.reduce((n, send) => n + send.failures.length, 0);
      await hl7ListenerProcess.kill('SIGKILL');
    });
    await sleepUnlessAborted(HL7_LISTENER_DOWN_S * 1000);
    await step('hl7-listener back', async () => {
      hl7Schedule.failuresAfterBack = scripted.sends.reduce((n, send) => n + send.failures.length, 0);
      hl7ListenerProcess.start();
      if (!(await hl7ListenerProcess.waitForLog(HL7_LISTENING, 120_000))) throw new Error('the HL7 listener did not listen within 120 s');
    });

    const drained = await until(() => scripted.pending === 0 && clock.t0 > 0 && Date.now() > clock.t0 + 40_000, 240_000);
    await step('sandbox-hl7-lab back', async () => {
      if (!drained) throw new Error(`the scripted lab still has ${scripted.pending} results to send`);
      sandboxHl7LabProcess.start();
      if (!(await sandboxHl7LabProcess.waitForLog(SANDBOX_HL7_LAB_LISTENING, 120_000))) throw new Error('the sandbox HL7 lab did not listen within 120 s');
    });

    // labflow's view of what the sandbox lab owes: its orders it ACKed AA whose two reports are not all in.
    const sandboxIds = setup.orders.filter((order) => order.method === 'sandbox_hl7_lab').map((order) => order.id);
    const owing = async () => {
      const [row]: Array<{ n: number }> = await db.query(
        `SELECT count(*)::int AS n FROM (SELECT order_id FROM hl7_messages WHERE order_id = ANY($1) GROUP BY order_id
           HAVING count(*) FILTER (WHERE direction = 'out' AND ack_code = 'AA') > 0 AND count(*) FILTER (WHERE direction = 'in') < 2) owed`,
        [sandboxIds],
      );
      return row.n;
    };
    const deadline = Date.now() + 240_000;
    while (!stopping.now && Date.now() < deadline && (hl7Schedule.sandboxKilledOwing = await owing()) === 0) await sleepUnlessAborted(100);
    await step(`sandbox-hl7-lab SIGKILL (owing the results of ${hl7Schedule.sandboxKilledOwing} order(s) it took)`, async () => {
      if (hl7Schedule.sandboxKilledOwing === 0) throw new Error('the sandbox HL7 lab never owed results it had taken orders for');
      await sandboxHl7LabProcess.kill('SIGKILL');
    });
    await sleepUnlessAborted(HL7_LISTENER_DOWN_S * 1000);
    await step('sandbox-hl7-lab back again (sends what its outbox holds)', async () => {
      sandboxHl7LabProcess.start();
      if (!(await sandboxHl7LabProcess.waitForLog(SANDBOX_HL7_LAB_LISTENING, 120_000))) throw new Error('the sandbox HL7 lab did not listen within 120 s');
    });
  } finally {
    hl7Schedule.done = true;
  }
  return outcomes;
}

/** The HL7 checks: each order message out once, every result in once, none lost, the lab's final values kept. */
export async function checkHl7(db: DataSource, tenant: Tenant, setup: Hl7Setup, outcomes: Hl7FaultOutcome[]): Promise<void> {
  const { scripted } = setup;
  const scriptedOrders = setup.orders.filter((order) => order.method === 'hl7_lab');
  const sandboxOrders = setup.orders.filter((order) => order.method === 'sandbox_hl7_lab');
  const ids = setup.orders.map((order) => order.id);
  console.log('');
  console.log('HL7 labs');
  for (const outcome of outcomes) console.log(`  +${outcome.atActual.toFixed(1)}s ${outcome.what}${outcome.ok ? '' : ` (FAILED: ${outcome.error})`}`);
  const attempts = scripted.sends.reduce((n, send) => n + send.attempts, 0);
  console.log(
    `  scripted lab: ${scripted.received.length} order message(s) received (${scripted.received.filter((row) => row.answer !== 'AA').length} dropped or left unACKed on purpose); ` +
      `${scripted.sends.length} result message(s) sent in ${attempts} attempts`,
  );
  check(
    'HL7 faults applied',
    outcomes.length === 6 && outcomes.every((outcome) => outcome.ok),
    outcomes
      .filter((o) => !o.ok)
      .map((o) => `${o.what}: ${o.error}`)
      .join('; '),
  );

  // Orders out: one message per order (one control id), accepted with AA, though the labs were down,
  // a connection dropped, an ACK never came and workers were killed.
  const outbound: Array<{ order_id: string; n: number; accepted: number }> = await db.query(
    `SELECT order_id, count(*)::int AS n, count(*) FILTER (WHERE state = 'accepted' AND ack_code = 'AA')::int AS accepted
       FROM hl7_messages WHERE direction = 'out' AND order_id = ANY($1) GROUP BY order_id`,
    [ids],
  );
  const outProblems = setup.orders.flatMap((order) => {
    const row = outbound.find((r) => r.order_id === order.id);
    return row?.n === 1 && row.accepted === 1 ? [] : [`${order.method} ${order.id}: ${row?.n ?? 0} order message(s), ${row?.accepted ?? 0} accepted`];
  });
  check(
    `HL7: every order's message went out once when its lab was back (one control id, ACKed AA; ${setup.orders.length} orders)`,
    outProblems.length === 0,
    outProblems.slice(0, 5).join('; '),
  );
  const labProblems: string[] = [];
  scriptedOrders.forEach((order, k) => {
    const rows = scripted.received.filter((row) => row.placer === order.id);
    const controlIds = new Set(rows.map((row) => row.controlId));
    const answers = rows.map((row) => row.answer);
    if (controlIds.size !== 1) labProblems.push(`${order.id}: ${controlIds.size} control ids`);
    if (!answers.includes('AA')) labProblems.push(`${order.id}: never ACKed`);
    if (k % 4 === 1 && answers[0] !== 'dropped') labProblems.push(`${order.id}: first connection not dropped (${answers.join(',')})`);
    if (k % 4 === 2 && answers[0] !== 'no ack') labProblems.push(`${order.id}: first attempt ACKed (${answers.join(',')})`);
  });
  check(
    'scripted lab: each order arrived under one control id; a connection dropped mid-message and an ACK that never came were sent again under the same id',
    labProblems.length === 0,
    labProblems.slice(0, 5).join('; '),
  );

  // Results in: every message the lab sent ACKed AA and stored once; the listener kill cost resends only.
  const unacked = scripted.sends.filter((send) => !send.acked);
  check(
    `scripted lab: all ${scripted.sends.length} result messages ACKed AA`,
    unacked.length === 0,
    unacked
      .map((send) => `${send.controlId} (${send.failures.slice(-1)[0]})`)
      .slice(0, 5)
      .join('; '),
  );
  const duringKill = hl7Schedule.failuresAfterBack - hl7Schedule.failuresBeforeKill;
  check(
    `labflow's listener killed while the lab sent (${hl7Schedule.listenerKilledWithPending} results to go): ${duringKill} attempt(s) failed meanwhile and were sent again`,
    hl7Schedule.listenerKilledWithPending > 0 && duringKill > 0,
    `${hl7Schedule.listenerKilledWithPending} pending at the kill, ${duringKill} failed attempts while it was down`,
  );
  const inbound: Array<{ control_id: string; order_id: string | null; state: string }> = await db.query(
    `SELECT control_id, order_id, state FROM hl7_messages WHERE direction = 'in' AND peer_facility = $1`,
    [setup.scriptedFacility],
  );
  const inProblems: string[] = [];
  const sentIds = new Set(scripted.sends.map((send) => send.controlId));
  for (const controlId of sentIds) {
    const send = scripted.sends.find((row) => row.controlId === controlId)!;
    const rows = inbound.filter((row) => row.control_id === controlId);
    const want = send.kind === 'stray' ? { order: null, state: 'held' } : { order: send.placer, state: 'processed' };
    if (rows.length !== 1) inProblems.push(`${controlId}: stored ${rows.length} times`);
    else if (rows[0].order_id !== want.order || rows[0].state !== want.state)
      inProblems.push(`${controlId}: ${rows[0].state} for ${rows[0].order_id}, want ${want.state} for ${want.order}`);
  }
  const extra = inbound.filter((row) => !sentIds.has(row.control_id));
  if (extra.length) inProblems.push(`${extra.length} stored message(s) the lab never sent`);
  const duplicates = scripted.sends.filter((send) => send.kind === 'F-again').length;
  check(
    `HL7 result messages stored once each (${sentIds.size} distinct; ${duplicates} duplicate ORU(s) ACKed again, not stored again), all processed; ${HL7_STRAYS} results for unknown orders held`,
    inProblems.length === 0,
    inProblems.slice(0, 5).join('; '),
  );
  const held = await db.query(`SELECT count(*)::int AS n FROM hl7_messages WHERE direction = 'in' AND peer_facility = $1 AND state = 'held'`, [
    setup.scriptedFacility,
  ]);
  console.log(`  held for review (unknown orders): ${held[0].n}`);

  // The sandbox lab, killed while it owed results (hl7Schedule.sandboxKilledOwing orders): each of
  // its orders got its preliminary and final report, each stored once and processed, and one
  // partial_results.
  const sandboxInbound: Array<{ order_id: string; control_id: string; n: number; processed: number }> = await db.query(
    `SELECT order_id, control_id, count(*)::int AS n, count(*) FILTER (WHERE state = 'processed')::int AS processed
       FROM hl7_messages WHERE direction = 'in' AND order_id = ANY($1) GROUP BY order_id, control_id`,
    [sandboxOrders.map((order) => order.id)],
  );
  const sandboxProblems = sandboxOrders.flatMap((order) => {
    const rows = sandboxInbound.filter((row) => row.order_id === order.id);
    const reports = rows.map((row) => row.control_id.slice(-2)).sort();
    const partials = ((order.view?.events ?? []) as OrderEvent[]).filter((event) => low(event.status) === 'partial_results').length;
    const problems = [];
    if (JSON.stringify(reports) !== JSON.stringify(['-F', '-P'])) problems.push(`${order.id}: reports ${reports.join(',') || 'none'}`);
    if (rows.some((row) => row.n !== 1 || row.processed !== 1)) problems.push(`${order.id}: a report stored or processed other than once`);
    if (partials !== 1) problems.push(`${order.id}: ${partials} partial_results events`);
    return problems;
  });
  check(
    `sandbox HL7 lab killed owing the results of ${hl7Schedule.sandboxKilledOwing} order(s): every one of its ${sandboxOrders.length} orders got its preliminary and final report, each stored and processed once, one partial_results`,
    hl7Schedule.sandboxKilledOwing > 0 && sandboxProblems.length === 0,
    sandboxProblems.slice(0, 5).join('; '),
  );

  // The orders' results: the scripted lab's final values (no preliminary one, even one sent after
  // the final), the sandbox lab's every component.
  const resultProblems: string[] = [];
  await pool(setup.orders, 10, async (order) => {
    const reply = await http(API, 'GET', `/v3/order/${order.id}/result`, { key: tenant.apiKey }).catch(
      (error: unknown) => ({ status: 0, body: String(error) }) as Reply,
    );
    if (reply.status !== 200) {
      resultProblems.push(`${order.method} ${order.id}: GET result ${reply.status}`);
      return;
    }
    const rows: Array<{ slug: string; result: string }> = reply.body.results ?? [];
    const slugs = rows.map((row) => row.slug).sort();
    if (JSON.stringify(slugs) !== JSON.stringify(setup.components.map((marker) => marker.slug).sort()))
      resultProblems.push(`${order.method} ${order.id}: results ${slugs.join(',')}`);
    if (order.method !== 'hl7_lab') return;
    const k = scriptedOrders.indexOf(order);
    // One partial_results per preliminary report sent before the final (P1, and P2 out of order);
    // a repeated final and a preliminary report after it add none.
    const partials = ((order.view?.events ?? []) as OrderEvent[]).filter((event) => low(event.status) === 'partial_results').length;
    if (partials !== (k % 3 === 0 ? 2 : 1)) resultProblems.push(`${order.id} (k ${k}): ${partials} partial_results events, want ${k % 3 === 0 ? 2 : 1}`);
    if (reply.body.metadata?.status !== 'final') resultProblems.push(`${order.id}: metadata.status ${reply.body.metadata?.status}`);
    setup.components.forEach((marker, index) => {
      const got = rows.find((row) => row.slug === marker.slug)?.result;
      if (got !== finalValue(k, index)) resultProblems.push(`${order.id} (k ${k}): ${marker.slug} ${got}, the final report said ${finalValue(k, index)}`);
    });
  });
  check(
    `HL7 results: every scripted-lab order has the final report's values (none of a partial sent out of order or after the final) and one partial_results per preliminary report before the final, every sandbox-lab order all ${setup.components.length} components (${scriptedOrders.length} + ${sandboxOrders.length} orders)`,
    resultProblems.length === 0,
    `${resultProblems.length}: ${resultProblems.slice(0, 5).join('; ')}`,
  );
}
