/**
 * HL7 results taken in against their floor (issue #40): result messages per second that labflow's
 * MLLP listener takes in, as production runs it (dist/src/worker.js): each ORU^R01 checked, stored
 * sealed and committed (group commit across connections), then ACKed; after the ACK matched to its
 * order by placer number and handed to the order's workflow (a signal), by a process of worker role
 * hl7-handoff beside the listener's role hl7-listener (BENCH_HL7_HANDOFF=process, the default), or
 * in the listener's own process (role hl7, BENCH_HL7_HANDOFF=listener) — ÷ an MLLP server built from the same framer and message model that only
 * ACKs (bench/hl7/ack-server.mjs). Goal: ≥ 0.5. After the slices the bench waits for every message
 * to be handed over and prints how long that took: the ratio counts ACKs, the hand-off must keep up.
 *
 * Both servers run on CPU BENCH_SERVER_CPU (0), the load generator (bench/hl7/load.mjs:
 * BENCH_CONNECTIONS MLLP connections, each sending its next message once the last was ACKed) in a
 * process of its own on BENCH_GENERATOR_CPU (1). The servers take turns in BENCH_SLICES pairs of
 * BENCH_SECONDS slices (bench/lib/load.ts comparePaired says why); the figure is the ratio of the
 * means, the pairs' ratios are printed for their spread. Postgres and Temporal are the machine's.
 *
 *   npm run bench:hl7   (settings from the environment as for the services: DATABASE_URL of a
 *                        migrated database, PHI_ENCRYPTION_KEY, REDIS_URL, TEMPORAL_ADDRESS,
 *                        TEMPORAL_NAMESPACE; BENCH_CONNECTIONS (8), BENCH_SECONDS (2, per slice),
 *                        BENCH_SLICES (6), BENCH_ORDERS (40): the orders the results are for;
 *                        BENCH_LISTENER_ARGS: more node flags for the listener)
 *
 * The orders are made through the API (started for that, then stopped) at an HL7 lab account of
 * the bench's own; no Temporal worker runs, so their workflows only collect the signals, and are
 * terminated at the end. The bench's org, lab account and messages are deleted.
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/config';
import { dataSourceOptions } from '../../src/db/data-source';
import {
  BENCH_CPUS,
  benchPost,
  benchTenant,
  fmt,
  middleHalf,
  onCpu,
  PRODUCTION_API_ENV,
  ROOT,
  runBenchMain,
  type ServerProcess,
  startServer,
  terminateBenchOrders,
} from '../lib/load';
import { backends, backendTicksBetween, cpuTicks, micros } from '../lib/cpu';
import { recordFigure } from '../lib/results';
import { mark, Observed, temporalPid } from './observe';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 40);
/** `process` (default): the listener is worker role hl7-listener (store, commit, ACK) and a process of role hl7-handoff (not pinned) hands over; `listener`: role hl7, the hand-off in the listener's process. */
const HANDOFF = process.env.BENCH_HL7_HANDOFF === 'listener' ? 'listener' : 'process';
/** The seeded lipid panel kit (src/db/migrations/1763790002001-lab-catalog-seed.ts). */
const LIPID_PANEL_KIT = '1ab7e570-0000-4000-8000-000000000001';

interface Slice {
  acked: number;
  refused: number;
  perSecond: number;
  /** CPU µs the server process used in the slice (null: /proc could not tell), and its Postgres backends'. */
  serverMicros?: number | null;
  postgresMicros?: number | null;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One slice of load against `port`: the generator's figures. */
function load(port: number, facility: string, orderIds: string[]): Promise<Slice> {
  const [command, args] = onCpu(BENCH_CPUS.generator, process.execPath, [join(ROOT, 'bench/hl7/load.mjs')]);
  const child = spawn(command, args, {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      SECONDS: String(SECONDS),
      CONNECTIONS: String(CONNECTIONS),
      FACILITY: facility,
      PREFIX: `B${randomUUID().slice(0, 8)}`,
      ORDER_IDS: JSON.stringify(orderIds),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Slice) : reject(new Error(`load generator exited ${code}`))));
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  const db = new DataSource(dataSourceOptions(config.databaseUrl));
  await db.initialize();
  const logDir = mkdtempSync(join(tmpdir(), 'labflow-bench-hl7-'));
  const tenant = await benchTenant(db, 'hl7');
  const taskQueue = `bench-hl7-${randomUUID()}`;
  const facility = `BENCH-${randomUUID().slice(0, 8)}`;
  const labAccountId = randomUUID();
  const servers: ServerProcess[] = [];
  const orderIds: string[] = [];
  try {
    const [test] = await db.query(`SELECT lab_id FROM lab_tests WHERE id = $1`, [LIPID_PANEL_KIT]);
    await db.query(
      `INSERT INTO lab_accounts (id, team_id, environment, lab_id, status, delegated_flow, provider_account_id, account_name, allowed_billing, team_id_allowlist)
       VALUES ($1, $2, NULL, $3, 'active', 'not_delegated', 'BENCH-1', 'bench HL7 lab', '{client_bill}', '{}')`,
      [labAccountId, tenant.teamId, test.lab_id],
    );
    // The lab's own port is never dialled: no worker runs the orders' requisitions.
    await db.query(
      `INSERT INTO hl7_lab_interfaces (lab_account_id, host, port, sending_application, sending_facility, receiving_application, receiving_facility, version, order_message_type)
       VALUES ($1, '127.0.0.1', 9, 'LABFLOW', 'LABFLOW', 'BENCHLAB', $2, '2.5.1', 'OML^O21')`,
      [labAccountId, facility],
    );

    const api = await startServer({
      name: 'the API',
      script: 'dist/src/main.js',
      env: { ...PRODUCTION_API_ENV, TEMPORAL_TASK_QUEUE: taskQueue },
      portVariable: 'API_PORT',
      logFile: join(logDir, 'api.log'),
      readyPath: '/health/ready',
    });
    try {
      const user = await benchPost(`${api.url}/v2/user`, tenant.key, { client_user_id: `bench-hl7-${randomUUID()}` });
      for (let i = 0; i < ORDERS; i += 1) {
        const order = await benchPost(`${api.url}/v3/order`, tenant.key, {
          user_id: user.user_id,
          lab_test_id: LIPID_PANEL_KIT,
          lab_account_id: labAccountId,
          patient_details: {
            first_name: 'Bench',
            last_name: 'Reader',
            dob: '1980-01-01',
            gender: 'female',
            phone_number: '+14155550100',
            email: 'bench@example.com',
          },
          patient_address: {
            receiver_name: 'Bench Reader',
            first_line: '1 Market St',
            city: 'San Francisco',
            state: 'CA',
            zip: '94105',
            country: 'US',
            phone_number: '+14155550100',
          },
        });
        orderIds.push((order.order as { id: string }).id);
      }
    } finally {
      await api.stop();
    }

    const listenerPort = await freePort();
    // BENCH_PROFILE_DIR: the listener and the hand-off write V8 CPU profiles there (where their time goes).
    const profileArgs = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const listener = await startServer({
      name: "labflow's HL7 listener",
      script: 'dist/src/worker.js',
      // BENCH_LISTENER_ARGS: more node flags for the listener (a V8 flag's before and after).
      nodeArgs: [...profileArgs, ...(process.env.BENCH_LISTENER_ARGS ?? '').split(' ').filter(Boolean)],
      env: {
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        METRICS_ENABLED: 'true',
        API_HOST: '127.0.0.1',
        WORKER_ROLES: HANDOFF === 'process' ? 'hl7-listener' : 'hl7',
        HL7_LISTENER_HOST: '127.0.0.1',
        HL7_LISTENER_PORT: String(listenerPort),
        TEMPORAL_TASK_QUEUE: taskQueue,
      },
      portVariable: 'WORKER_HEALTH_PORT',
      logFile: join(logDir, 'listener.log'),
      readyPath: '/health/ready',
      cpu: BENCH_CPUS.server,
    });
    servers.push(listener);
    const handOff =
      HANDOFF === 'process'
        ? await startServer({
            name: 'the HL7 hand-off',
            script: 'dist/src/worker.js',
            nodeArgs: profileArgs,
            env: {
              NODE_ENV: 'production',
              LOG_LEVEL: 'info',
              METRICS_ENABLED: 'true',
              API_HOST: '127.0.0.1',
              WORKER_ROLES: 'hl7-handoff',
              TEMPORAL_TASK_QUEUE: taskQueue,
            },
            portVariable: 'WORKER_HEALTH_PORT',
            logFile: join(logDir, 'handoff.log'),
            readyPath: '/health/ready',
          })
        : null;
    if (handOff) servers.push(handOff);
    const floorPort = await freePort();
    const floor = await startServer({
      name: 'the ACK-only server',
      script: 'bench/hl7/ack-server.mjs',
      env: { HL7_PORT: String(floorPort) },
      portVariable: 'BARE_PORT',
      logFile: join(logDir, 'floor.log'),
      readyPath: '/health/ready',
      cpu: BENCH_CPUS.server,
    });
    servers.push(floor);

    console.log(
      `bench:hl7 — hand-off in ${HANDOFF === 'process' ? 'a process of its own' : "the listener's process"}, ${CONNECTIONS} MLLP connections, ${SLICES} pairs of ${SECONDS} s slices, results for ${ORDERS} orders; load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')}`,
    );
    // A first short run each: connections, prepared statements and JIT warm.
    await load(listenerPort, facility, orderIds);
    await load(floorPort, facility, orderIds);
    const sides: [Slice[], Slice[]] = [[], []];
    const ports = [listenerPort, floorPort];
    const pids = [listener.child.pid ?? 0, floor.child.pid ?? 0];
    const handOffPid = handOff?.child.pid ?? null;
    const handOffTicks = handOffPid === null ? null : cpuTicks(handOffPid);
    const temporal = temporalPid();
    const observed = [new Observed(), new Observed()];
    const metricsUrls = [`${listener.url}/metrics`, null];
    const handOffMetricsUrl = `${(handOff ?? listener).url}/metrics`;
    for (let pair = 0; pair < SLICES; pair += 1) {
      for (const index of pair % 2 === 0 ? [0, 1] : [1, 0]) {
        // CPU per message of each side (steadier than rates on a loaded machine): the server process, and the Postgres backends of this database.
        const [ticks, postgres, before] = [cpuTicks(pids[index]), await backends(db), await mark(handOffPid, temporal, metricsUrls[index], handOffMetricsUrl)];
        const slice = await load(ports[index], facility, orderIds);
        const [ticksAfter, postgresAfter, after] = [
          cpuTicks(pids[index]),
          await backends(db),
          await mark(handOffPid, temporal, metricsUrls[index], handOffMetricsUrl),
        ];
        observed[index].add(before, after, slice.acked, slice.perSecond > 0 ? slice.acked / slice.perSecond : 0);
        slice.serverMicros = ticks === null || ticksAfter === null ? null : micros(ticksAfter - ticks);
        const postgresTicks = backendTicksBetween(postgres, postgresAfter);
        slice.postgresMicros = postgresTicks === null ? null : micros(postgresTicks);
        if (slice.refused > 0) throw new Error(`${index === 0 ? 'labflow' : 'the floor'} answered ${slice.refused} messages with AE/AR; see ${logDir}`);
        sides[index].push(slice);
      }
    }
    const mean = (slices: Slice[]) => slices.reduce((sum, slice) => sum + slice.perSecond, 0) / slices.length;
    const [labflow, bare] = [mean(sides[0]), mean(sides[1])];
    const ratios = sides[0].map((slice, pair) => slice.perSecond / sides[1][pair].perSecond).sort((a, b) => a - b);
    const perMessage = (slices: Slice[], key: 'serverMicros' | 'postgresMicros') => {
      const acked = slices.reduce((sum, slice) => sum + slice.acked, 0);
      const micros = slices.reduce<number | null>((sum, slice) => (sum === null || slice[key] == null ? null : sum + (slice[key] as number)), 0);
      return micros === null || acked === 0 ? 'n/a' : `${fmt(micros / acked)} µs`;
    };
    // Everything ACKed is matched and signalled after its ACK: wait for the hand-off to finish.
    const drainTicks = cpuTicks(pids[0]);
    const drainStarted = Date.now();
    const handedOver = async () =>
      (
        await db.query(
          `SELECT count(*) FILTER (WHERE state = 'received')::int AS waiting, count(*) FILTER (WHERE state = 'processed' AND order_id IS NOT NULL)::int AS processed
             FROM hl7_messages WHERE peer_facility = $1 AND direction = 'in'`,
          [facility],
        )
      )[0] as { waiting: number; processed: number };
    let drained = await handedOver();
    while (drained.waiting > 0 && Date.now() - drainStarted < 600_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      drained = await handedOver();
    }
    const drainTicksAfter = cpuTicks(pids[0]);
    const handOffTicksAfter = handOffPid === null ? null : cpuTicks(handOffPid);
    const stored = drained.processed;
    const acked = sides[0].reduce((sum, slice) => sum + slice.acked, 0);
    console.table([
      { server: "labflow's listener (stored and committed, then ACKed; matched and signalled after)", 'messages/s': fmt(labflow) },
      { server: 'ACK-only MLLP server (same framer and parser)', 'messages/s': fmt(bare) },
    ]);
    console.log(
      `messages matched and handed to their orders over the run (warm-up included): ${fmt(stored)}, ${drained.waiting} still waiting; ACKed in the measured slices: ${fmt(acked)}; the hand-off finished ${fmt((Date.now() - drainStarted) / 1000, 1)} s after the last slice`,
    );
    console.log(
      `CPU per message ACKed in the slices: labflow's listener ${perMessage(sides[0], 'serverMicros')} (its Postgres backends ${perMessage(sides[0], 'postgresMicros')}), the floor ${perMessage(sides[1], 'serverMicros')}; the listener's CPU after the last slice (the hand-off catching up) ${drainTicks === null || drainTicksAfter === null ? 'n/a' : `${fmt(micros(drainTicksAfter - drainTicks) / 1000)} ms`}` +
        (handOffTicks === null || handOffTicksAfter === null
          ? ''
          : `; the hand-off process, from the first measured slice to the end, ${fmt(micros(handOffTicksAfter - handOffTicks) / Math.max(1, acked))} µs per message ACKed`),
    );
    console.log(`labflow's slices: ${observed[0].describe(CONNECTIONS)}`);
    console.log(`the floor's slices: ${observed[1].describe(CONNECTIONS)}`);
    console.log(
      `ratio ${fmt(labflow / bare, 2)} (goal ≥ 0.5); pair ratios, middle half ${middleHalf(ratios)}, all ${ratios.map((ratio) => fmt(ratio, 2)).join(' ')}`,
    );
    recordFigure({
      bench: 'hl7',
      name: 'ORU^R01 messages/s taken in',
      value: labflow,
      baseline: bare,
      baselineName: 'ACK-only MLLP server',
      unit: 'messages/s',
      goal: { ratio: 0.5, atLeast: true },
    });
  } finally {
    for (const server of servers) await server.stop();
    await terminateBenchOrders({ address: config.temporal.address, namespace: config.temporal.namespace }, orderIds);
    await db.query(`DELETE FROM hl7_messages WHERE peer_facility = $1 OR order_id = ANY($2::uuid[])`, [facility, orderIds]);
    await db.query(`DELETE FROM lab_accounts WHERE id = $1`, [labAccountId]).catch(() => undefined);
    await tenant.remove();
    await db.destroy();
    rmSync(logDir, { recursive: true, force: true });
  }
}

runBenchMain(main);
