/**
 * The fault run (issue 17, "No order is ever stranded"): every collection method under process,
 * Temporal and Redis faults, asserting that every order completes, none is stranded, no
 * transition is recorded twice and no webhook event is lost.
 *
 *   npm run test:faults    (scripts/test-faults.sh brings up the fault run's own Temporal dev
 *                           server, database, Redis and build, then runs this file)
 *
 * It runs the real processes (node dist/src/main.js, management.js, worker.js) as children on
 * 127.0.0.1 and supervises them as a process manager would: a process that exits on its own is
 * started again after a second; the faults below kill them on purpose.
 *
 *   1. a demo org/team (sandbox key, management key), partial-results webhooks on, a webhook
 *      endpoint (management API) pointing at a receiver in this process that verifies every
 *      signature (svix + standardwebhooks) and answers 500 to ~20% of attempts, chosen by a hash
 *      of the message id and the attempt number (deterministic);
 *   2. FAULTS_ORDERS_PER_METHOD (20) sandbox orders per collection method through POST /v3/order:
 *      test kit, at-home phlebotomy at zip 85004, walk-in at Quest, on-site at Quest; then every
 *      POST /v3/order/{id}/test?delay=2 at once (t = 0);
 *      Before that, the workflows of FAULTS_LOST_WORKFLOWS (2) test-kit orders are terminated, and
 *      the run waits until a reconciler has started a new run of each (healed once, checked last);
 *   3. faults: worker SIGKILL +3 s (back +10 s), Temporal SIGKILL +18 s (back +24 s, same SQLite
 *      file or PostgreSQL databases), Redis CLIENT PAUSE 12000 +32 s, API SIGKILL +48 s (back
 *      +50 s), worker SIGKILL +55 s (back +60 s);
 *   4. waits (bounded: FAULTS_DEADLINE_SECONDS from t = 0, or FAULTS_QUIET_SECONDS without any
 *      progress) until every order is terminal and every outbox event delivered, then checks;
 *      last, a team key is revoked through the management API and every API replica must refuse
 *      it within 5 s (the key cache's revocation NOTIFY).
 *
 * With FAULTS_REPLICAS=2 (npm run test:replicas, on the Temporal server) two API replicas and two
 * workers run: requests go round the replicas, the first API and worker are the ones killed first
 * (the others carry on), the second worker is the one killed at +55 s. Every worker runs the
 * outbox relay, the retention sweep and the reconciler: the checks show each order completed once,
 * each event delivered under one webhook id, each lost workflow healed once.
 *
 * Prints a table per collection method and ends with `faults: N passed, N failed`. The phases live
 * beside this file: settings.ts, processes.ts, setup.ts, schedule.ts (the faults), hl7-faults.ts
 * (the HL7 labs), settle.ts (the wait), evidence.ts, report.ts and verdicts.ts (the checks).
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createDataSource } from '../../src/db/data-source';
import { labflowDataConverter } from '../../src/temporal/payload-codec';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { gatherEvidence } from './evidence';
import { checkHl7, reportDraws, runHl7Faults, setUpHl7 } from './hl7-faults';
import { http, type Reply } from './http';
import { check, clock, log, tally } from './log';
import { apiFor, shutdown, stopping } from './processes';
import { report } from './report';
import { runFaults } from './schedule';
import {
  API,
  APIS,
  config,
  DEADLINE_S,
  HL7,
  LOG_DIR,
  MANAGEMENT,
  PER_METHOD,
  RECEIVER_FAILURE_SHARE,
  REPLICAS,
  SIMULATION_DELAY_S,
  WEBHOOK_PATH,
} from './settings';
import { settle } from './settle';
import { createOrders, importMigratedUsers, loseWorkflows, setUpTeam, startProcesses } from './setup';
import { requireCreated } from './team';
import { checkHeals, checkMigration, checkNoEventLost, checkOrders, checkRevocation, checkRunApplied } from './verdicts';

async function main(): Promise<void> {
  log(
    `fault run: ${PER_METHOD} orders per collection method; ${REPLICAS} API replica(s) ${APIS.join(' ')} and ${REPLICAS} worker(s); management ${MANAGEMENT}, Temporal ${config.temporal.address} (${config.temporal.namespace}), logs ${LOG_DIR}`,
  );
  const receiver = await WebhookReceiver.start();
  const attempts = new Map<string, number>();
  receiver.respond(WEBHOOK_PATH, (request) => {
    if (!request.verified) return { status: 400, body: `bad signature: ${request.verifyError}` };
    const attempt = (attempts.get(request.webhookId) ?? 0) + 1;
    attempts.set(request.webhookId, attempt);
    const hash = createHash('sha256').update(`${request.webhookId}:${attempt}`).digest();
    return hash.readUInt32BE(0) / 2 ** 32 < RECEIVER_FAILURE_SHARE ? { status: 500, body: 'simulated receiver failure' } : { status: 200, body: 'ok' };
  });

  const db = createDataSource(config.databaseUrl, 3);
  await db.initialize();
  let connection: Connection | null = null;
  try {
    await startProcesses();
    const { tenant, teamApi } = await setUpTeam(db, receiver);
    const migrated = await importMigratedUsers(tenant, teamApi);
    const orders = await createOrders(tenant);
    // The simulated orders; the HL7 labs' orders are played by the labs.
    const simulated = [...orders];
    const hl7 = HL7 ? await setUpHl7(db, tenant) : null;
    if (hl7) {
      requireCreated(hl7.orders, 'HL7 lab orders', ' (on-site CMP, lab_account_id of an HL7 lab)');
      orders.push(...hl7.orders);
    }

    connection = await Connection.connect(config.temporal.connection);
    const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter: labflowDataConverter(config) });
    const lost = await loseWorkflows(client, orders);

    // The simulations, all at once: t = 0.
    clock.t0 = Date.now();
    const hl7Faults = hl7 ? runHl7Faults(hl7, db) : Promise.resolve([]);
    const draws = hl7 ? reportDraws(hl7.orders, tenant, clock.t0 + DEADLINE_S * 1000) : Promise.resolve();
    log(`POST /v3/order/{id}/test?delay=${SIMULATION_DELAY_S} for ${simulated.length} orders at once`);
    const simulations = await Promise.all(
      simulated.map((order, index) =>
        http(apiFor(index), 'POST', `/v3/order/${order.id}/test?delay=${SIMULATION_DELAY_S}`, { key: tenant.apiKey, body: {} }).then(
          (reply) => ({ order, reply }),
          (error: unknown) => ({ order, reply: { status: 0, body: String(error) } as Reply }),
        ),
      ),
    );
    const pull = await http(API, 'POST', '/v2/link/bulk_trigger_historical_pull', { key: tenant.apiKey, body: { provider: 'oura', user_ids: migrated } }).catch(
      (error: unknown) => ({ status: 0, body: String(error) }) as Reply,
    );
    log(`bulk historical pull of ${migrated.length} Oura connections: ${pull.status}`);
    const refused = simulations.filter(({ reply }) => reply.status !== 200);
    log(`simulations accepted: ${simulations.length - refused.length}/${simulations.length}`);

    const faultOutcomes = await runFaults();
    if (stopping.now) return;
    const stopReason = await settle(db, tenant, orders, receiver, hl7);
    // Interrupted (Ctrl-C): no checks on a run cut short; finish() stops the processes.
    if (stopReason === null || stopping.now) return;
    log(`stopped waiting: ${stopReason}`);

    const evidence = await gatherEvidence(db, client, tenant, orders, receiver);
    const stranded = await report(db, client, tenant, orders, evidence, faultOutcomes);
    console.log('');
    console.log('checks');
    checkRunApplied(refused, faultOutcomes, evidence);
    checkOrders(orders, stranded, evidence);
    await checkMigration(db, tenant, migrated, pull, evidence);
    await checkHeals(db, client, lost);
    await checkRevocation(tenant);
    if (hl7) {
      await draws;
      await checkHl7(db, tenant, hl7, await hl7Faults);
    }
    checkNoEventLost(evidence);
  } finally {
    await connection?.close().catch(() => undefined);
    await db.destroy().catch(() => undefined);
    await receiver.close().catch(() => undefined);
  }
}

let exiting = false;
async function finish(code: number): Promise<never> {
  if (exiting) return new Promise<never>(() => undefined);
  exiting = true;
  await shutdown().catch((error: unknown) => console.error(`[faults] shutdown: ${String(error)}`));
  console.log(`[faults] took ${((Date.now() - clock.started) / 1000).toFixed(0)} s; logs in ${LOG_DIR}`);
  console.log(`faults: ${tally.passed} passed, ${tally.failed} failed`);
  process.exit(code);
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  process.once(signal, () => {
    console.log(`\n[faults] ${signal}: stopping the fault run's processes`);
    check('run not interrupted', false, signal);
    void finish(code);
  });
}

main().then(
  () => finish(tally.failed === 0 ? 0 : 1),
  (error: unknown) => {
    check('the fault run ran to its end', false, error instanceof Error ? (error.stack ?? error.message) : String(error));
    return finish(1);
  },
);
