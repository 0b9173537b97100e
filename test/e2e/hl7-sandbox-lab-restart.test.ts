import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { type Hl7Listener } from '../../src/hl7/hl7-listener';
import { orderState, orderWorkflowId } from '../../workflows/contract';
import { runCli } from '../helpers/cli';
import { eventually } from '../helpers/eventually';
import { createOnSiteLabOrder, ON_SITE_CMP, orderReaches, outboxEvents, startOrderStack } from '../helpers/orders';
import { call, spawnBuiltWorker, type Tenant, type TestStack } from '../helpers/stack';
import { freePort } from '../helpers/free-port';
import { insertLabAccount, startTestHl7Listener } from '../helpers/hl7';

/**
 * The sandbox HL7 lab is a party of its own (worker role `sandbox-hl7-lab`, here the built worker
 * in a child process): killed (SIGKILL) after it took an order and before it reported, and
 * started again, it sends the results it owed from its outbox, and the order completes with
 * them, each result message applied once. Before its outbox, the reports it owed were timers in
 * the killed process: the order waited for results forever.
 */
let stack: TestStack;
let tenant: Tenant;
let userId: string;
let listener: Hl7Listener;
let labPort: number;
let child: ChildProcess | null = null;
/** Long enough that the lab is killed before its first report is due (asserted, not assumed). */
const RESULT_DELAY = '10s';
/** Both runs of the sandbox lab process log here. */
const LOG_DIR = join(__dirname, '..', '..', 'test-output', 'hl7-sandbox-lab-restart');
const LOG_FILE = join(LOG_DIR, 'sandbox-hl7-lab.log');

beforeAll(async () => {
  ({ stack, tenant, userId } = await startOrderStack());
  listener = await startTestHl7Listener(stack);
  labPort = await freePort();
  mkdirSync(LOG_DIR, { recursive: true });
}, 120_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await listener?.close();
  await stack?.close();
});

/** The sandbox HL7 lab as its own process; answers once it takes connections. */
async function startSandboxLabProcess(): Promise<ChildProcess> {
  const started = spawnBuiltWorker(
    {
      WORKER_ROLES: 'sandbox-hl7-lab',
      SANDBOX_HL7_LAB_PORT: String(labPort),
      SANDBOX_HL7_LAB_RESULTS_TO: `127.0.0.1:${listener.port}`,
      SANDBOX_LAB_RESULT_DELAY: RESULT_DELAY,
      HL7_LISTENER_HOST: '127.0.0.1',
      WORKER_HEALTH_PORT: '0',
      METRICS_ENABLED: 'false',
    },
    LOG_FILE,
  );
  await eventually(
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = net.connect(labPort, '127.0.0.1', () => (socket.destroy(), resolve(true)));
        socket.on('error', () => resolve(undefined));
      }),
    'the sandbox HL7 lab process to listen',
    120_000,
  );
  return started;
}

async function killed(process: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => process.once('exit', resolve));
  process.kill('SIGKILL');
  await exited;
}

const messagesOf = (orderId: string) =>
  stack.db.query(`SELECT direction, message_type, state, ack_code FROM hl7_messages WHERE order_id = $1 ORDER BY created_at`, [orderId]);

it('the sandbox lab killed after taking an order, then started again: the order completes with its results, each result message applied once', async () => {
  child = await startSandboxLabProcess();
  const [test] = await stack.db.query(`SELECT lab_id FROM lab_tests WHERE id = $1`, [ON_SITE_CMP]);
  const account = randomUUID();
  await insertLabAccount(stack, { id: account, teamId: tenant.teamId, labId: test.lab_id, providerAccountId: 'SBX-RESTART', name: 'Sandbox lab over HL7' });
  const settings = {
    host: '127.0.0.1',
    port: labPort,
    sendingApplication: 'LABFLOW',
    sendingFacility: 'LABFLOW-TEST',
    receivingApplication: 'SANDBOX',
    receivingFacility: `SBX-${randomUUID().slice(0, 8)}`,
    version: '2.5.1',
    orderMessageType: 'OML^O21',
    testCodes: {},
  };
  expect((await runCli(['hl7', 'configure', account, '--settings', JSON.stringify(settings)], {})).code).toBe(0);

  const orderId = await createOnSiteLabOrder(stack, tenant, userId, account);
  await eventually(
    async () => ((await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).query(orderState)).stage === 'awaiting_draw' ? true : undefined),
    `order ${orderId} awaiting the draw`,
  );
  expect((await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/draw_completed`, { key: tenant.apiKey })).status).toBe(200);
  // The lab took the order (ACK AA), and owes its two reports.
  await eventually(async () => ((await messagesOf(orderId)).some((row: any) => row.ack_code === 'AA') ? true : undefined), 'the lab’s AA');
  await killed(child);
  child = null;
  expect(await messagesOf(orderId)).toEqual([{ direction: 'out', message_type: 'OML^O21', state: 'accepted', ack_code: 'AA' }]);
  expect(await stack.db.query(`SELECT status FROM sandbox_hl7_lab_outbox WHERE order_id = $1 ORDER BY status`, [orderId])).toEqual([
    { status: 'F' },
    { status: 'P' },
  ]);

  child = await startSandboxLabProcess();
  const completed = await orderReaches(stack, tenant, orderId, 'completed', 120_000);
  expect(completed.events.map((event: any) => event.status.split('.')[2])).toEqual([
    'ordered',
    'requisition_created',
    'draw_completed',
    'partial_results',
    'completed',
  ]);
  expect(await messagesOf(orderId)).toEqual([
    { direction: 'out', message_type: 'OML^O21', state: 'accepted', ack_code: 'AA' },
    { direction: 'in', message_type: 'ORU^R01', state: 'processed', ack_code: 'AA' },
    { direction: 'in', message_type: 'ORU^R01', state: 'processed', ack_code: 'AA' },
  ]);
  const history = (await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).fetchHistory()).events ?? [];
  expect(history.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'labUpdate')).toHaveLength(2);
  const result = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
  expect(result.status).toBe(200);
  expect(result.body.results.length).toBeGreaterThan(0);
  await eventually(async () => {
    const events = await outboxEvents(stack, tenant.teamId, orderId);
    expect(events.filter((event) => event.status.endsWith('.completed'))).toHaveLength(1);
    return true;
  }, "the order's one completed event");
  // Nothing owed any more: the lab forgets what labflow ACKed.
  await eventually(
    async () => ((await stack.db.query(`SELECT 1 FROM sandbox_hl7_lab_outbox WHERE order_id = $1`, [orderId])).length === 0 ? true : undefined),
    'the sandbox lab’s outbox to empty',
  );
}, 240_000);
