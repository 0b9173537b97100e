import { Hl7Message } from '@medplum/core';
import { Hl7Client, Hl7Connection, Hl7Server } from '@medplum/hl7';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { type SandboxHl7Lab, startSandboxHl7Lab } from '../../src/adapters/lab/sandbox-hl7-lab';
import { SandboxHl7LabOutboxRepository } from '../../src/adapters/lab/sandbox-hl7-lab-outbox.repository';
import { PhiCipher } from '../../src/common/crypto';
import { OrderSandboxLabCatalog } from '../../src/orders/order-sandbox-lab-catalog';
import { OrderWorkflows } from '../../src/orders/order-workflows';
import { OrdersRepository } from '../../src/orders/orders.repository';
import { type Hl7Listener } from '../../src/hl7/hl7-listener';
import { Hl7TransportError, sendAndAwaitAck } from '../../src/hl7/mllp-client';
import { frame, MllpFramer } from '../../src/hl7/mllp-framer';
import { orderState, orderWorkflowId } from '../../workflows/contract';
import { processMetrics } from '../../src/common/metrics/registry';
import { runCli } from '../helpers/cli';
import { fetchBytes } from '../helpers/pdf';
import { eventually } from '../helpers/eventually';
import { createOnSiteLabOrder, HL7_PHYSICIAN, ON_SITE_CMP, orderReaches, startOrderStack } from '../helpers/orders';
import { call, type Tenant, type TestStack } from '../helpers/stack';
import { insertLabAccount, startTestHl7Listener } from '../helpers/hl7';

/**
 * A lab reached over HL7 v2 / MLLP, through real sockets both ways: an Hl7Server of @medplum/hl7
 * in this process stands in for the lab's interface (it ACKs labflow's order messages as told),
 * and sends results back to labflow's listener with an Hl7Client.
 */
const LAB_FACILITY = `QDX-${randomUUID().slice(0, 8)}`;
/** The report the lab embeds in its final results (a minimal PDF). */
const LAB_PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

let stack: TestStack;
let tenant: Tenant;
let userId: string;
let listener: Hl7Listener;
let lab: Hl7Server;
let labPort: number;
let labAccountId: string;
/** The order messages the lab received, and how it answers the next one. */
const received: Hl7Message[] = [];
let answer: { code: 'AA' | 'AE'; text: string } = { code: 'AA', text: 'Order accepted' };
/** CMP components with LOINC codes, and the panel's marker id. */
let panelId: number;
let components: Array<{ id: number; name: string; slug: string; loinc: string }>;

beforeAll(async () => {
  ({ stack, tenant, userId } = await startOrderStack());
  listener = await startTestHl7Listener(stack);
  lab = new Hl7Server((connection: Hl7Connection) => {
    connection.addEventListener('message', ({ message }: { message: Hl7Message }) => {
      received.push(message);
      const ack = message.buildAck({ ackCode: answer.code });
      ack.getSegment('MSA')!.setField(3, answer.text);
      connection.send(ack);
    });
  });
  lab.start(0);
  await new Promise((resolve) => lab.server!.once('listening', resolve));
  labPort = (lab.server!.address() as AddressInfo).port;

  const [test] = await stack.db.query(`SELECT lab_id FROM lab_tests WHERE id = $1`, [ON_SITE_CMP]);
  [{ marker_id: panelId }] = await stack.db.query(`SELECT marker_id FROM lab_test_markers WHERE lab_test_id = $1 ORDER BY position LIMIT 1`, [ON_SITE_CMP]);
  components = await stack.db.query(
    `SELECT m.id, m.name, m.slug, l.code AS loinc FROM lab_panel_members p JOIN lab_markers m ON m.id = p.member_id JOIN loinc_codes l ON l.id = m.loinc_id
      WHERE p.panel_id = $1 ORDER BY p.position`,
    [panelId],
  );
  labAccountId = randomUUID();
  await stack.db.query(
    `INSERT INTO lab_accounts (id, team_id, environment, lab_id, status, delegated_flow, provider_account_id, account_name, allowed_billing, team_id_allowlist)
     VALUES ($1, $2, NULL, $3, 'active', 'not_delegated', 'QDX-ACCT-77', 'Quest over HL7', '{client_bill,commercial_insurance}', '{}')`,
    [labAccountId, tenant.teamId, test.lab_id],
  );
  const configured = await runCli(
    [
      '--json',
      'hl7',
      'configure',
      labAccountId,
      '--settings',
      JSON.stringify({
        host: '127.0.0.1',
        port: labPort,
        sendingApplication: 'LABFLOW',
        sendingFacility: 'LABFLOW-TEST',
        receivingApplication: 'QDX',
        receivingFacility: LAB_FACILITY,
        version: '2.3',
        orderMessageType: 'ORM^O01',
        testCodes: { [panelId]: { code: '10231', text: 'CMP' }, [components[0].id]: { code: 'GLU-7', text: components[0].name } },
      }),
    ],
    {},
  );
  expect(configured.code).toBe(0);
}, 120_000);

afterAll(async () => {
  await listener?.close();
  await lab?.stop({ forceDrainTimeoutMs: 100 });
  await stack?.close();
});

const createOrder = (accountId = labAccountId) => createOnSiteLabOrder(stack, tenant, userId, accountId, { priority: true, icd_codes: ['R73.09'] });

/** An ORU^R01 for `placer` as the lab sends it. */
function oru(controlId: string, placer: string, resultStatus: 'P' | 'F', observations: string[]): Hl7Message {
  const segments = [
    `MSH|^~\\&|QDX|${LAB_FACILITY}|LABFLOW|LABFLOW-TEST|20261128120000||ORU^R01|${controlId}|P|2.3`,
    'PID|1||PAT-1^^^QDX||OKONKWO^MARGUERITE||19860412|F',
    `ORC|RE|${placer}^LABFLOW|ACC-${placer.slice(0, 6)}^QDX||${resultStatus === 'F' ? 'CM' : 'A'}`,
    `OBR|1|${placer}^LABFLOW|ACC-${placer.slice(0, 6)}^QDX|10231^CMP^L|||20261128080000|||||||||||||||20261128115900|||${resultStatus}`,
    ...observations,
  ];
  return Hl7Message.parse(segments.join('\r'));
}

async function sendToListener(message: Hl7Message): Promise<Hl7Message> {
  const client = new Hl7Client({ host: '127.0.0.1', port: listener.port });
  try {
    return await client.sendAndWait(message, { timeoutMs: 10_000 });
  } finally {
    await client.close();
  }
}

/** Raw bytes to the listener; the first ACK frame back, as text. */
async function sendRaw(bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(listener.port, '127.0.0.1');
    let data = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf(Buffer.from([0x1c, 0x0d]));
      if (end !== -1) {
        socket.destroy();
        resolve(data.subarray(1, end).toString('utf8'));
      }
    });
    socket.on('error', reject);
    socket.write(bytes);
  });
}
const framed = (text: string | Buffer) => Buffer.concat([Buffer.from([0x0b]), typeof text === 'string' ? Buffer.from(text) : text, Buffer.from([0x1c, 0x0d])]);
/** labflow_hl7_waiting_messages{kind} as this process's /metrics shows it. */
const waitingCount = async (kind: 'held' | 'refused_order') => {
  const text = await processMetrics.getSingleMetricAsString('labflow_hl7_waiting_messages');
  return Number(new RegExp(`kind="${kind}"} (\\d+)`).exec(text)?.[1]);
};
/**
 * The order's run has taken in its requisition and waits for the draw: the status row is written by
 * the transition activity before the run itself moves on, so a draw reported in between is refused.
 */
const awaitingDraw = (orderId: string) =>
  eventually(
    async () => ((await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).query(orderState)).stage === 'awaiting_draw' ? true : undefined),
    `order ${orderId} awaiting the draw`,
  );
const msa = (ack: Hl7Message | string) => (typeof ack === 'string' ? Hl7Message.parse(ack) : ack).getSegment('MSA')!;

describe('an order at an HL7 lab', () => {
  it('goes out as ORM^O01, and the lab’s partial then final results complete it with the lab’s values', async () => {
    const orderId = await createOrder();
    await orderReaches(stack, tenant, orderId, 'requisition_created');
    const sent = received.find((message) => message.getSegment('ORC')?.getComponent(2, 1) === orderId);
    expect(sent).toBeDefined();
    const message = sent!;
    expect(message.getSegment('MSH')!.getField(9).toString()).toBe('ORM^O01');
    expect(message.getSegment('MSH')!.getComponent(6, 1)).toBe(LAB_FACILITY);
    expect(message.getSegment('PID')!.getField(5).toString()).toBe('Okonkwo^Marguerite');
    expect(message.getSegment('PID')!.getField(7).toString()).toBe('19860412');
    expect(message.getSegment('ORC')!.getComponent(1, 1)).toBe('NW');
    expect(message.getSegment('ORC')!.getComponent(12, 1)).toBe(HL7_PHYSICIAN.npi);
    expect(message.getSegment('OBR')!.getField(4).toString()).toBe('10231^CMP^L');
    expect(message.getSegment('OBR')!.getComponent(16, 1)).toBe(HL7_PHYSICIAN.npi);
    expect(message.getSegment('OBR')!.getComponent(27, 6)).toBe('S');
    expect(message.getSegment('DG1')!.getComponent(3, 1)).toBe('R73.09');
    const [outbound] = await stack.db.query(`SELECT state, ack_code, ack_text, body_enc FROM hl7_messages WHERE direction = 'out' AND order_id = $1`, [
      orderId,
    ]);
    expect(outbound).toMatchObject({ state: 'accepted', ack_code: 'AA', ack_text: 'Order accepted' });
    expect(outbound.body_enc).not.toContain('Okonkwo');

    await awaitingDraw(orderId);
    expect((await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/draw_completed`, { key: tenant.apiKey })).status).toBe(200);
    const [glucose, second, ...rest] = components;
    const partial = await sendToListener(oru(`R-${orderId.slice(0, 8)}-1`, orderId, 'P', [`OBX|1|NM|GLU-7^Glucose^L||92|mg/dL|70-99|N|||P|||20261128110000`]));
    expect(msa(partial).getComponent(1, 1)).toBe('AA');
    await orderReaches(stack, tenant, orderId, 'partial_results');

    const finalObservations = [
      `OBX|1|NM|GLU-7^Glucose^L||104|mg/dL|70-99|H|||C|||20261128110000`,
      `OBX|2|SN|${second.loinc}^${second.name}^LN||<^5|mg/dL|<10|N|||F`,
      ...rest.map((marker, index) => `OBX|${index + 3}|NM|${marker.loinc}^${marker.name}^LN||${10 + index}|U|5-50|N|||F`),
      `OBX|${rest.length + 3}|ED|PDF^Lab report^L||QDX^application^pdf^Base64^${LAB_PDF.toString('base64')}||||||F`,
    ];
    const finalOru = oru(`R-${orderId.slice(0, 8)}-2`, orderId, 'F', finalObservations);
    expect(msa(await sendToListener(finalOru)).getComponent(1, 1)).toBe('AA');
    await orderReaches(stack, tenant, orderId, 'completed');

    const result = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
    expect(result.status).toBe(200);
    const bySlug = new Map<string, any>(result.body.results.map((row: any) => [row.slug, row]));
    expect(bySlug.get(glucose.slug)).toMatchObject({
      result: '104',
      unit: 'mg/dL',
      interpretation: 'abnormal',
      reference_range: '70-99',
      is_above_max_range: true,
    });
    expect(bySlug.get(second.slug)).toMatchObject({ result: '<5', type: 'range' });
    expect(bySlug.size).toBe(components.length);
    expect(result.body.metadata.status).toBe('final');
    // The lab's own report (OBX ED) is the result PDF.
    const pdf = await fetchBytes(`${stack.apiUrl}/v3/order/${orderId}/result/pdf`, { 'x-service-api-key': tenant.apiKey });
    expect(pdf.status).toBe(200);
    expect(pdf.body.equals(LAB_PDF)).toBe(true);

    // The same final again (the lab did not see the ACK): ACKed again, stored once, nothing changes.
    const repeat = await sendToListener(finalOru);
    expect(msa(repeat).getComponent(1, 1)).toBe('AA');
    expect(msa(repeat).getComponent(2, 1)).toBe(`R-${orderId.slice(0, 8)}-2`);
    const inbound = await stack.db.query(`SELECT control_id, state, body_enc FROM hl7_messages WHERE direction = 'in' AND order_id = $1 ORDER BY created_at`, [
      orderId,
    ]);
    expect(inbound.map((row: any) => [row.control_id, row.state])).toEqual([
      [`R-${orderId.slice(0, 8)}-1`, 'processed'],
      [`R-${orderId.slice(0, 8)}-2`, 'processed'],
    ]);
    expect(inbound[1].body_enc).not.toContain('OKONKWO');
  }, 90_000);

  it('waits when the lab refuses the order (AE) until ops resend it; a result for no order is held and matched again', async () => {
    answer = { code: 'AE', text: 'Unknown account QDX-ACCT-77' };
    // The gauges count the whole database (other runs' orders too): this test moves them by one.
    const refusedBefore = await waitingCount('refused_order');
    const orderId = await createOrder();
    const handle = stack.temporal.workflow.getHandle(`order:${orderId}`);
    const waiting = await eventually(async () => {
      const state = await handle.query(orderState);
      return state.stage === 'awaiting_lab_order_resend' ? state : undefined;
    }, 'the order to wait for a resend');
    expect(waiting.labOrderRefused).toMatchObject({ code: 'AE', text: 'Unknown account QDX-ACCT-77' });
    expect((await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey })).body.last_event.status).toMatch(/\.ordered$/);
    const listed = await runCli(['hl7', 'messages', orderId], {});
    expect(listed.stdout).toContain('out ORM^O01');
    expect(listed.stdout).toContain('error AE "Unknown account QDX-ACCT-77"');
    expect(await waitingCount('refused_order')).toBe(refusedBefore + 1);

    answer = { code: 'AA', text: 'Order accepted' };
    const resent = await runCli(['--json', 'hl7', 'resend', orderId], {});
    expect(resent.json).toEqual({ order_id: orderId, status: 'accepted' });
    await orderReaches(stack, tenant, orderId, 'requisition_created');
    expect(await waitingCount('refused_order')).toBe(refusedBefore);
    const sends = received.filter((message) => message.getSegment('ORC')?.getComponent(2, 1) === orderId);
    expect(sends).toHaveLength(2);
    expect(sends[0].getSegment('MSH')!.getField(10).toString()).not.toBe(sends[1].getSegment('MSH')!.getField(10).toString());

    // A result naming an order labflow does not have: ACKed, held, listed, then matched to this order.
    const stray = randomUUID();
    const heldBefore = await waitingCount('held');
    const heldAck = await sendToListener(oru(`R-STRAY-${stray.slice(0, 8)}`, stray, 'P', [`OBX|1|NM|GLU-7^Glucose^L||88|mg/dL|70-99|N|||P`]));
    expect(msa(heldAck).getComponent(1, 1)).toBe('AA');
    // Matching comes after the ACK: the message is held once the listener found no order for it.
    const heldRow = await eventually(
      async () => (await runCli(['--json', 'hl7', 'held'], {})).json.find((row: any) => row.controlId === `R-STRAY-${stray.slice(0, 8)}`),
      'the stray result to be held',
    );
    expect(heldRow).toMatchObject({ state: 'held', orderId: null, direction: 'in' });
    expect(await waitingCount('held')).toBe(heldBefore + 1);
    const rematched = await runCli(['--json', 'hl7', 'rematch', heldRow.id, '--order', orderId], {});
    expect(rematched.code).toBe(0);
    expect(rematched.json).toMatchObject({ id: heldRow.id, state: 'processed', orderId });
    expect((await runCli(['--json', 'hl7', 'held'], {})).json.map((row: any) => row.id)).not.toContain(heldRow.id);
    expect(await waitingCount('held')).toBe(heldBefore);
  }, 90_000);
});

describe('a cancelled order at an HL7 lab', () => {
  it('still goes to the lab as ORC CA after the reconciler started a new run for it', async () => {
    const orderId = await createOrder();
    await orderReaches(stack, tenant, orderId, 'requisition_created');
    await awaitingDraw(orderId);
    await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).terminate('test: a bug killed the workflow');
    // The reconciler's heal: a new run from where the order stands (its requisition went out, the lab took it).
    await stack.api.get(OrderWorkflows).restart((await stack.api.get(OrdersRepository).findById(orderId))!);
    await awaitingDraw(orderId);
    answer = { code: 'AA', text: 'Cancellation accepted' };
    try {
      expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/cancel`, { key: tenant.apiKey })).status).toBe(200);
      const run = stack.temporal.workflow.getHandle(orderWorkflowId(orderId));
      expect(await run.result()).toEqual({ status: 'cancelled.on_site_collection.cancelled' });
      expect((await run.query(orderState)).labOrderCancelAck).toMatchObject({ code: 'AA', text: 'Cancellation accepted' });
      const sends = received.filter((message) => message.getSegment('ORC')?.getComponent(2, 1) === orderId);
      expect(sends.map((message) => message.getSegment('ORC')!.getComponent(1, 1))).toEqual(['NW', 'CA']);
    } finally {
      answer = { code: 'AA', text: 'Order accepted' };
    }
  }, 90_000);

  it('goes to the lab as ORC CA once the cancellation is recorded, and the lab’s ACK is kept', async () => {
    const orderId = await createOrder();
    await orderReaches(stack, tenant, orderId, 'requisition_created');
    await awaitingDraw(orderId);
    answer = { code: 'AA', text: 'Cancellation accepted' };
    const cancelled = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/cancel`, { key: tenant.apiKey });
    expect(cancelled.status).toBe(200);
    const handle = stack.temporal.workflow.getHandle(orderWorkflowId(orderId));
    expect(await handle.result()).toEqual({ status: 'cancelled.on_site_collection.cancelled' });
    const sends = received.filter((message) => message.getSegment('ORC')?.getComponent(2, 1) === orderId);
    expect(sends.map((message) => message.getSegment('ORC')!.getComponent(1, 1))).toEqual(['NW', 'CA']);
    const cancellation = sends[1];
    expect(cancellation.getSegment('MSH')!.getField(9).toString()).toBe('ORM^O01');
    expect(cancellation.getSegment('OBR')!.getField(4).toString()).toBe('10231^CMP^L');
    const rows = await stack.db.query(
      `SELECT control_id, state, ack_code, ack_text FROM hl7_messages WHERE direction = 'out' AND order_id = $1 ORDER BY created_at`,
      [orderId],
    );
    expect(rows.map((row: any) => [row.control_id, row.state, row.ack_code])).toEqual([
      [sends[0].getSegment('MSH')!.getField(10).toString(), 'accepted', 'AA'],
      [cancellation.getSegment('MSH')!.getField(10).toString(), 'accepted', 'AA'],
    ]);
    expect(rows[1].ack_text).toBe('Cancellation accepted');
    // The history shows the send and the lab's answer.
    const history = await handle.fetchHistory();
    const scheduled = history
      .events!.filter((event) => event.activityTaskScheduledEventAttributes)
      .map((event) => event.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(scheduled.at(-1)).toBe('cancelLabOrder');
    answer = { code: 'AA', text: 'Order accepted' };
  }, 90_000);
});

describe('the sandbox lab as an HL7 peer', () => {
  let sandboxLab: SandboxHl7Lab;
  afterAll(() => sandboxLab?.close());

  it('sends each report again, with backoff, until labflow ACKs it AA (listener down, then AE)', async () => {
    // labflow's side, scripted: per report, the first connection dropped unanswered, then AE, then AA.
    const answers = new Map<string, string[]>();
    const fake = net.createServer((socket) => {
      socket.on('error', () => undefined);
      const framer = new MllpFramer(1_000_000);
      socket.on('data', (chunk: Buffer) => {
        for (const event of framer.push(chunk)) {
          if (event.kind !== 'message') continue;
          const message = Hl7Message.parse(event.bytes.toString('utf8'));
          const controlId = message.getSegment('MSH')!.getField(10).toString();
          const sent = answers.get(controlId) ?? [];
          const code = (['dropped', 'AE'] as const)[sent.length] ?? ('AA' as const);
          answers.set(controlId, [...sent, code]);
          if (code === 'dropped') socket.destroy();
          else socket.write(frame(message.buildAck({ ackCode: code }).toString()));
        }
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', () => resolve()));
    const markersOf = await createOrder();
    const peer = await startSandboxHl7Lab({
      port: 0,
      host: '127.0.0.1',
      labflow: { host: '127.0.0.1', port: (fake.address() as AddressInfo).port },
      resultDelayMs: 50,
      catalog: { markersOfOrder: () => stack.api.get(OrderSandboxLabCatalog).markersOfOrder(markersOf) },
      outbox: new SandboxHl7LabOutboxRepository(stack.db, stack.api.get(PhiCipher)),
      logger: { warn: () => undefined },
      resend: { initialMs: 50, maxMs: 200 },
    });
    try {
      const orderId = randomUUID();
      const order = [
        `MSH|^~\\&|LABFLOW|LABFLOW-TEST|SANDBOX|SBX-RESEND|20261129010000||ORM^O01|LFRESEND1|T|2.3`,
        'PID|1||PAT^^^LABFLOW^PI||Okonkwo^Marguerite||19860412|F',
        `ORC|NW|${orderId}^LABFLOW||${orderId}^LABFLOW`,
        `OBR|1|${orderId}^LABFLOW||10901^CMP^L`,
      ].join('\r');
      const ack = await sendAndAwaitAck({ host: '127.0.0.1', port: peer.port, tls: null }, order, { connectTimeoutMs: 5000, ackTimeoutMs: 5000 });
      expect(ack.getSegment('MSA')!.getField(1).toString()).toBe('AA');
      const both = await eventually(() => {
        const done = [...answers.values()].filter((sent) => sent.at(-1) === 'AA');
        return done.length === 2 ? [...answers.entries()] : undefined;
      }, 'both reports ACKed AA');
      // Each report (its control id kept, so labflow sees a repeat) three times: dropped, AE, AA; then no more.
      expect(both.map(([controlId, sent]) => [controlId.slice(-2), sent]).sort()).toEqual([
        ['-F', ['dropped', 'AE', 'AA']],
        ['-P', ['dropped', 'AE', 'AA']],
      ]);
    } finally {
      await peer.close();
      await new Promise((resolve) => fake.close(resolve));
    }
  }, 60_000);

  it('takes the order over MLLP and reports preliminary then final results through labflow’s listener', async () => {
    sandboxLab = await startSandboxHl7Lab({
      port: 0,
      host: '127.0.0.1',
      labflow: { host: '127.0.0.1', port: listener.port },
      resultDelayMs: 300,
      catalog: stack.api.get(OrderSandboxLabCatalog),
      outbox: new SandboxHl7LabOutboxRepository(stack.db, stack.api.get(PhiCipher)),
      logger: { warn: () => undefined },
    });
    const [test] = await stack.db.query(`SELECT lab_id FROM lab_tests WHERE id = $1`, [ON_SITE_CMP]);
    const sandboxAccount = randomUUID();
    await insertLabAccount(stack, { id: sandboxAccount, teamId: tenant.teamId, labId: test.lab_id, providerAccountId: 'SBX-1', name: 'Sandbox lab over HL7' });
    const settings = {
      host: '127.0.0.1',
      port: sandboxLab.port,
      sendingApplication: 'LABFLOW',
      sendingFacility: 'LABFLOW-TEST',
      receivingApplication: 'SANDBOX',
      receivingFacility: `SBX-${randomUUID().slice(0, 8)}`,
      version: '2.5.1',
      orderMessageType: 'OML^O21',
      testCodes: {},
    };
    expect((await runCli(['hl7', 'configure', sandboxAccount, '--settings', JSON.stringify(settings)], {})).code).toBe(0);

    const orderId = await createOrder(sandboxAccount);
    await orderReaches(stack, tenant, orderId, 'requisition_created');
    await awaitingDraw(orderId);
    expect((await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/draw_completed`, { key: tenant.apiKey })).status).toBe(200);
    const completed = await orderReaches(stack, tenant, orderId, 'completed');
    expect(completed.events.map((event: any) => event.status.split('.')[2])).toEqual([
      'ordered',
      'requisition_created',
      'draw_completed',
      'partial_results',
      'completed',
    ]);
    const messages = await stack.db.query(`SELECT direction, message_type, state, ack_code FROM hl7_messages WHERE order_id = $1 ORDER BY created_at`, [
      orderId,
    ]);
    expect(messages).toEqual([
      { direction: 'out', message_type: 'OML^O21', state: 'accepted', ack_code: 'AA' },
      { direction: 'in', message_type: 'ORU^R01', state: 'processed', ack_code: 'AA' },
      { direction: 'in', message_type: 'ORU^R01', state: 'processed', ack_code: 'AA' },
    ]);
    const result = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
    expect(result.status).toBe(200);
    expect(result.body.results.map((row: any) => row.slug).sort()).toEqual(components.map((marker) => marker.slug).sort());

    // The conversation as stored (sealed bodies opened, each with the ACK it got), for the docs
    // and for whoever reads this run's output: HL7_PRINT_CONVERSATION=1.
    const conversation = await stack.db.query(`SELECT direction, body_enc, ack_code, ack_text FROM hl7_messages WHERE order_id = $1 ORDER BY created_at`, [
      orderId,
    ]);
    const cipher = stack.api.get(PhiCipher);
    const printed = conversation.map((row: any) => {
      const segments = cipher.decrypt(row.body_enc).split('\r');
      return [
        `${row.direction === 'out' ? 'labflow → lab' : 'lab → labflow'}`,
        ...segments.map((line: string) => `  ${line}`),
        `  ← ACK ${row.ack_code} ${row.ack_text ?? ''}`,
      ].join('\n');
    });
    expect(printed).toHaveLength(3);
    expect(printed[0]).toMatch(/ORC\|NW\|/);
    if (process.env.HL7_PRINT_CONVERSATION === '1') console.log(printed.join('\n\n'));
  }, 90_000);
});

/** A CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl. */
function certificates(): Record<'ca' | 'serverCert' | 'serverKey' | 'clientCert' | 'clientKey' | 'otherCa', string> {
  const dir = mkdtempSync(join(tmpdir(), 'hl7-tls-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  for (const ca of ['ca', 'other-ca'])
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${ca}`, '-keyout', file(`${ca}.key`), '-out', file(`${ca}.pem`));
  for (const [name, subject, ext] of [
    ['server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1'],
    ['client', '/CN=labflow', 'extendedKeyUsage=clientAuth'],
  ]) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`));
    execFileSync('bash', ['-c', `printf '%s' '${ext}' > ${file(`${name}.ext`)}`]);
    openssl(
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      file(`${name}.ext`),
      '-out',
      file(`${name}.pem`),
    );
  }
  return {
    ca: file('ca.pem'),
    serverCert: file('server.pem'),
    serverKey: file('server.key'),
    clientCert: file('client.pem'),
    clientKey: file('client.key'),
    otherCa: file('other-ca.pem'),
  };
}

describe('MLLP over mutual TLS', () => {
  let files: ReturnType<typeof certificates>;
  beforeAll(() => {
    files = certificates();
  });

  it('sends an order message to a lab that asks for labflow’s client certificate, and refuses a lab its CA did not sign', async () => {
    const server = tls.createServer(
      { cert: readFileSync(files.serverCert), key: readFileSync(files.serverKey), ca: readFileSync(files.ca), requestCert: true, rejectUnauthorized: true },
      (socket) => {
        const connection = new Hl7Connection(socket);
        connection.addEventListener('message', ({ message }: { message: Hl7Message }) => connection.send(message.buildAck({ ackCode: 'AA' })));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const order = `MSH|^~\\&|LABFLOW|LF|QDX|QDX|20261128120000||ORM^O01|TLS-1|P|2.3\rPID|1||x`;
    try {
      const ack = await sendAndAwaitAck({ host: '127.0.0.1', port, tls: { caFile: files.ca, certFile: files.clientCert, keyFile: files.clientKey } }, order, {
        connectTimeoutMs: 5000,
        ackTimeoutMs: 5000,
      });
      expect(msa(ack).toString()).toMatch(/^MSA\|AA\|TLS-1/);
      await expect(
        sendAndAwaitAck({ host: '127.0.0.1', port, tls: { caFile: files.otherCa, certFile: files.clientCert, keyFile: files.clientKey } }, order, {
          connectTimeoutMs: 5000,
          ackTimeoutMs: 5000,
        }),
      ).rejects.toThrow(Hl7TransportError);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('takes a lab’s message on the TLS listener only from a lab with a certificate its CA signed', async () => {
    const secure = await startTestHl7Listener(stack, {
      frameTimeoutMs: 1000,
      tls: { certFile: files.serverCert, keyFile: files.serverKey, caFile: files.ca },
    });
    const exchange = (clientCert: boolean) =>
      new Promise<string>((resolve, reject) => {
        const socket = tls.connect({
          host: '127.0.0.1',
          port: secure.port,
          ca: readFileSync(files.ca),
          ...(clientCert ? { cert: readFileSync(files.clientCert), key: readFileSync(files.clientKey) } : {}),
        });
        let data = Buffer.alloc(0);
        socket.on('secureConnect', () => socket.write(framed(oru(`TLS-IN-${randomUUID().slice(0, 8)}`, randomUUID(), 'P', []).toString())));
        socket.on('data', (chunk) => {
          data = Buffer.concat([data, chunk]);
          const end = data.indexOf(Buffer.from([0x1c, 0x0d]));
          if (end !== -1) {
            socket.destroy();
            resolve(data.subarray(1, end).toString('utf8'));
          }
        });
        socket.on('error', reject);
        socket.on('close', () => reject(new Error('closed without an ACK')));
      });
    try {
      expect(msa(await exchange(true)).getComponent(1, 1)).toBe('AA');
      await expect(exchange(false)).rejects.toThrow();
    } finally {
      await secure.close();
    }
  });
});

describe('malformed input', () => {
  const countIn = async () => Number((await stack.db.query(`SELECT count(*) FROM hl7_messages WHERE direction = 'in'`))[0].count);

  it('is refused with AR and the reason, and nothing is stored', async () => {
    const before = await countIn();
    const badEncoding = await sendRaw(framed(`MSH|#~\\&|QDX|${LAB_FACILITY}|LABFLOW|LABFLOW-TEST|20261128120000||ORU^R01|BAD-1|P|2.3\rPID|1`));
    expect(msa(badEncoding).getComponent(1, 1)).toBe('AR');
    expect(msa(badEncoding).getComponent(3, 1)).toContain('Encoding characters');

    const notUtf8 = await sendRaw(
      framed(
        Buffer.concat([
          Buffer.from(`MSH|^~\\&|QDX|${LAB_FACILITY}|LABFLOW|LABFLOW-TEST|20261128120000||ORU^R01|BAD-2|P|2.3||||||UNICODE UTF-8\rPID|1||||`),
          Buffer.from([0xc3, 0x28]),
        ]),
      ),
    );
    expect(msa(notUtf8).getComponent(1, 1)).toBe('AR');
    expect(msa(notUtf8).getComponent(2, 1)).toBe('BAD-2');
    expect(msa(notUtf8).getComponent(3, 1)).toContain('not valid UTF-8');

    const noMsh = await sendRaw(framed('PID|1||x'));
    expect(msa(noMsh).getComponent(1, 1)).toBe('AR');

    const oversized = await sendRaw(
      framed(`MSH|^~\\&|QDX|${LAB_FACILITY}|LABFLOW|LABFLOW-TEST|20261128120000||ORU^R01|BIG-1|P|2.3\rNTE|1||${'x'.repeat(70_000)}`),
    );
    expect(msa(oversized).getComponent(1, 1)).toBe('AR');
    expect(msa(oversized).getComponent(3, 1)).toContain('exceeds the limit of 64000 bytes');

    const truncated = await sendRaw(Buffer.from(`\x0bMSH|^~\\&|QDX|${LAB_FACILITY}|LABFLOW|LABFLOW-TEST|20261128120000||ORU^R01|CUT-1|P|2.3\rPID|1`));
    expect(msa(truncated).getComponent(1, 1)).toBe('AR');
    expect(msa(truncated).getComponent(3, 1)).toContain('Truncated frame');

    const unknownLab = await sendRaw(framed(`MSH|^~\\&|X|NOT-A-LAB|LABFLOW|LABFLOW-TEST|20261128120000||ORU^R01|UNK-1|P|2.3\rORC|RE|x`));
    expect(msa(unknownLab).getComponent(1, 1)).toBe('AR');
    expect(await countIn()).toBe(before);
  }, 30_000);
});
