import { Hl7Message } from '@medplum/core';
import { randomUUID } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { PhiCipher } from '../../src/common/crypto';
import { Hl7InboundDelivery } from '../../src/hl7/hl7-inbound-delivery';
import { Hl7Repository } from '../../src/hl7/hl7.repository';
import { type Hl7Listener } from '../../src/hl7/hl7-listener';
import { frame, MllpFramer } from '../../src/hl7/mllp-framer';
import { orderState, orderWorkflowId } from '../../workflows/contract';
import { runCli } from '../helpers/cli';
import { eventually } from '../helpers/eventually';
import { createOnSiteLabOrder, ON_SITE_CMP, orderReaches, startOrderStack } from '../helpers/orders';
import { call, type Tenant, type TestStack } from '../helpers/stack';
import { insertLabAccount, startTestHl7Listener } from '../helpers/hl7';

/**
 * An HL7 lab's faults through real MLLP sockets both ways: a lab interface in this process (a
 * plain TCP server, so it can be down, drop a connection mid-message or never ACK) takes
 * labflow's order messages, and results go to labflow's listener out of order, twice, after the
 * final, cut off mid-frame and for an order labflow does not have. Each ends with nothing lost and
 * nothing done twice. (The listener killed while a lab sends, and the lab down for longer, are in
 * the fault run: npm run test:faults.)
 */
const LAB_FACILITY = `FLT-${randomUUID().slice(0, 8)}`;

let stack: TestStack;
let tenant: Tenant;
let userId: string;
let listener: Hl7Listener;
let labAccountId: string;
let labPort: number;
let labServer: net.Server | null = null;
let components: Array<{ name: string; slug: string; loinc: string }>;

/** How the lab treats the first attempt of each order's message (by placer number). */
const firstAttempt = new Map<string, 'drop' | 'silent'>();
/** Every order message that reached the lab, and what the lab did with it. */
const received: Array<{ placer: string; controlId: string; answer: 'dropped' | 'no ack' | 'AA' }> = [];

/** The lab's interface: up on `labPort` until `labDown()`. */
async function labUp(): Promise<void> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    const framer = new MllpFramer(1_000_000);
    let first = true;
    socket.on('data', (chunk: Buffer) => {
      if (first) {
        first = false;
        const placer = /ORC\|NW\|([0-9a-f-]{36})/.exec(chunk.toString('utf8'))?.[1];
        if (placer && firstAttempt.get(placer) === 'drop' && !received.some((row) => row.placer === placer)) {
          received.push({ placer, controlId: /\|ORM\^O01\|([^|]+)\|/.exec(chunk.toString('utf8'))?.[1] ?? '?', answer: 'dropped' });
          socket.destroy();
          return;
        }
      }
      for (const event of framer.push(chunk)) {
        if (event.kind !== 'message') continue;
        const message = Hl7Message.parse(event.bytes.toString('utf8'));
        const placer = message.getSegment('ORC')?.getComponent(2, 1) ?? '';
        const controlId = message.getSegment('MSH')?.getField(10).toString() ?? '';
        if (firstAttempt.get(placer) === 'silent' && !received.some((row) => row.placer === placer)) {
          received.push({ placer, controlId, answer: 'no ack' });
          continue;
        }
        received.push({ placer, controlId, answer: 'AA' });
        socket.write(frame(message.buildAck({ ackCode: 'AA' }).toString()));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(labPort, '127.0.0.1', () => resolve());
  });
  labServer = server;
}

async function labDown(): Promise<void> {
  const server = labServer;
  labServer = null;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

beforeAll(async () => {
  // An ACK that never comes is given up on after 2 s (and the message sent again).
  ({ stack, tenant, userId } = await startOrderStack({ env: { HL7_ACK_TIMEOUT: '2s' } }));
  listener = await startTestHl7Listener(stack);
  // A port for the lab, free again until the lab comes up.
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  labPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));

  const [test] = await stack.db.query(`SELECT lab_id FROM lab_tests WHERE id = $1`, [ON_SITE_CMP]);
  const [{ marker_id: panelId }] = await stack.db.query(`SELECT marker_id FROM lab_test_markers WHERE lab_test_id = $1 ORDER BY position LIMIT 1`, [
    ON_SITE_CMP,
  ]);
  components = await stack.db.query(
    `SELECT m.name, m.slug, l.code AS loinc FROM lab_panel_members p JOIN lab_markers m ON m.id = p.member_id JOIN loinc_codes l ON l.id = m.loinc_id
      WHERE p.panel_id = $1 ORDER BY p.position`,
    [panelId],
  );
  labAccountId = randomUUID();
  await insertLabAccount(stack, { id: labAccountId, teamId: tenant.teamId, labId: test.lab_id, providerAccountId: 'FLT-ACCT-1', name: 'Faulty lab over HL7' });
  const settings = {
    host: '127.0.0.1',
    port: labPort,
    sendingApplication: 'LABFLOW',
    sendingFacility: 'LABFLOW-TEST',
    receivingApplication: 'FLT',
    receivingFacility: LAB_FACILITY,
    version: '2.3',
    orderMessageType: 'ORM^O01',
    testCodes: {},
  };
  expect((await runCli(['hl7', 'configure', labAccountId, '--settings', JSON.stringify(settings)], {})).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await listener?.close();
  await labDown();
  await stack?.close();
});

const createOrder = () => createOnSiteLabOrder(stack, tenant, userId, labAccountId);

/** An order at the HL7 lab (brought up if down) whose requisition went out, waiting for the draw. */
async function orderAwaitingDraw(): Promise<string> {
  if (!labServer) await labUp();
  const orderId = await createOrder();
  await orderReaches(stack, tenant, orderId, 'requisition_created');
  await eventually(
    async () => ((await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).query(orderState)).stage === 'awaiting_draw' ? true : undefined),
    `order ${orderId} awaiting the draw`,
  );
  return orderId;
}

/** The same order once the team reported the draw (answered 200): the lab's results are next. */
async function orderAwaitingResults(): Promise<string> {
  const orderId = await orderAwaitingDraw();
  expect((await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/draw_completed`, { key: tenant.apiKey })).status).toBe(200);
  await orderReaches(stack, tenant, orderId, 'draw_completed');
  return orderId;
}

const outboundOf = (orderId: string) =>
  stack.db.query(`SELECT control_id, state, ack_code FROM hl7_messages WHERE direction = 'out' AND order_id = $1 ORDER BY created_at`, [orderId]);

/** An ORU^R01 for `placer`: observations as `[loinc, value]`, observed at `observedAt` (OBX-14). */
function oru(controlId: string, placer: string, status: 'P' | 'F', values: Array<[string, string]>, observedAt: string): string {
  return [
    `MSH|^~\\&|FLT|${LAB_FACILITY}|LABFLOW|LABFLOW-TEST|20261128120000||ORU^R01|${controlId}|P|2.3`,
    'PID|1||PAT-1^^^FLT||OKONKWO^MARGUERITE||19860412|F',
    `ORC|RE|${placer}^LABFLOW|ACC-${placer.slice(0, 6)}^FLT||${status === 'F' ? 'CM' : 'A'}`,
    `OBR|1|${placer}^LABFLOW|ACC-${placer.slice(0, 6)}^FLT|10231^CMP^L|||20261128080000|||||||||||||||20261128115900|||${status}`,
    ...values.map(([loinc, value], index) => `OBX|${index + 1}|NM|${loinc}^Marker^LN||${value}|U|1-1000|N|||${status}|||${observedAt}`),
  ].join('\r');
}

/** Sends bytes to labflow's listener; the MSA of its first ACK, or null when the connection closed first. */
function toListener(bytes: Buffer, closeAfterWrite = false): Promise<{ code: string; controlId: string } | null> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(listener.port, '127.0.0.1');
    const framer = new MllpFramer(1_000_000);
    socket.on('error', reject);
    socket.on('close', () => resolve(null));
    socket.on('data', (chunk: Buffer) => {
      for (const event of framer.push(chunk)) {
        if (event.kind !== 'message') continue;
        const msa = Hl7Message.parse(event.bytes.toString('utf8')).getSegment('MSA')!;
        resolve({ code: msa.getComponent(1, 1), controlId: msa.getComponent(2, 1) });
        socket.destroy();
      }
    });
    socket.write(bytes, () => {
      if (closeAfterWrite) socket.destroy();
    });
  });
}
const send = (text: string) => toListener(frame(text));

describe('an HL7 lab that is down, drops a connection mid-message and never ACKs', () => {
  it('gets each order once, under one control id, when it is back', async () => {
    // Down: nothing listens on the lab's port while three orders are placed.
    const [plain, dropped, silent] = [await createOrder(), await createOrder(), await createOrder()];
    firstAttempt.set(dropped, 'drop');
    firstAttempt.set(silent, 'silent');
    await eventually(async () => ((await outboundOf(plain)).length === 1 ? true : undefined), 'the first send to the lab that is down');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const orderId of [plain, dropped, silent]) {
      expect((await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey })).body.last_event.status).toMatch(/\.ordered$/);
      expect(await outboundOf(orderId)).toEqual([expect.objectContaining({ state: 'sending', ack_code: null })]);
    }
    expect(received).toEqual([]);

    await labUp();
    for (const orderId of [plain, dropped, silent]) await orderReaches(stack, tenant, orderId, 'requisition_created', 90_000);
    for (const orderId of [plain, dropped, silent]) {
      const [outbound, ...more] = await outboundOf(orderId);
      expect(more).toEqual([]);
      expect(outbound).toMatchObject({ state: 'accepted', ack_code: 'AA' });
      const atLab = received.filter((row) => row.placer === orderId);
      // Every attempt carried the same control id: the lab sees one order, however often it came.
      expect(new Set(atLab.map((row) => row.controlId))).toEqual(new Set([outbound.control_id]));
      expect(atLab.map((row) => row.answer)).toEqual(orderId === dropped ? ['dropped', 'AA'] : orderId === silent ? ['no ack', 'AA'] : ['AA']);
    }
  }, 150_000);
});

describe('results that come out of order, twice, after the final, cut off, or for no order', () => {
  it('are each taken once; the order completes once with the final report’s values', async () => {
    const orderId = await orderAwaitingDraw();
    const [first, second] = components;
    const id = (name: string) => `${name}-${orderId.slice(0, 8)}`;
    const p1 = oru(id('P1'), orderId, 'P', [[first.loinc, '501']], '20261128090000');
    const p2 = oru(
      id('P2'),
      orderId,
      'P',
      [
        [first.loinc, '602'],
        [second.loinc, '603'],
      ],
      '20261128100000',
    );
    const final = oru(
      id('F'),
      orderId,
      'F',
      components.map((marker, index) => [marker.loinc, String(40 + index)]),
      '20261128110000',
    );
    const late = oru(
      id('P3'),
      orderId,
      'P',
      [
        [first.loinc, '704'],
        [second.loinc, '705'],
      ],
      '20261128120000',
    );

    // The connection drops halfway through the second preliminary report: nothing is taken.
    const framed = frame(p2);
    expect(await toListener(framed.subarray(0, Math.floor(framed.length / 2)), true)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await stack.db.query(`SELECT 1 FROM hl7_messages WHERE control_id = $1`, [id('P2')])).toEqual([]);
    // Then the lab resends it whole, and the earlier preliminary report arrives after it.
    expect(await send(p2)).toEqual({ code: 'AA', controlId: id('P2') });
    expect(await send(p1)).toEqual({ code: 'AA', controlId: id('P1') });
    expect(await send(final)).toEqual({ code: 'AA', controlId: id('F') });
    // The final again (the lab missed the ACK): ACKed again, not taken again.
    expect(await send(final)).toEqual({ code: 'AA', controlId: id('F') });
    // A preliminary report after the final one.
    expect(await send(late)).toEqual({ code: 'AA', controlId: id('P3') });
    // A result for an order labflow does not have: ACKed and held, also when it comes twice.
    const stray = oru(id('STRAY'), randomUUID(), 'F', [[first.loinc, '1']], '20261128110000');
    expect(await send(stray)).toEqual({ code: 'AA', controlId: id('STRAY') });
    expect(await send(stray)).toEqual({ code: 'AA', controlId: id('STRAY') });

    expect((await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/draw_completed`, { key: tenant.apiKey })).status).toBe(200);
    const completed = await orderReaches(stack, tenant, orderId, 'completed');
    // One partial_results per preliminary report before the final (two, whatever their order); the
    // repeated final and the preliminary report after it change nothing.
    expect(completed.events.map((event: any) => event.status.split('.')[2])).toEqual([
      'ordered',
      'requisition_created',
      'draw_completed',
      'partial_results',
      'partial_results',
      'completed',
    ]);
    const result = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
    expect(result.status).toBe(200);
    expect(result.body.metadata.status).toBe('final');
    const values = new Map(result.body.results.map((row: any) => [row.slug, row.result]));
    expect(Object.fromEntries(values)).toEqual(Object.fromEntries(components.map((marker, index) => [marker.slug, String(40 + index)])));

    // Each handed over (or held) after its ACK.
    const inbound = await eventually(async () => {
      const rows = await stack.db.query(
        `SELECT control_id, order_id, state FROM hl7_messages WHERE direction = 'in' AND peer_facility = $1 ORDER BY created_at`,
        [LAB_FACILITY],
      );
      return rows.some((row: any) => row.state === 'received') ? undefined : rows;
    }, 'every message handed over or held');
    expect(inbound.filter((row: any) => row.control_id !== id('STRAY'))).toEqual(
      [id('P2'), id('P1'), id('F'), id('P3')].map((control_id) => ({ control_id, order_id: orderId, state: 'processed' })),
    );
    expect(inbound.filter((row: any) => row.control_id === id('STRAY'))).toEqual([{ control_id: id('STRAY'), order_id: null, state: 'held' }]);
    const held = await runCli(['--json', 'hl7', 'held'], {});
    expect(held.json.filter((row: any) => row.controlId === id('STRAY'))).toEqual([expect.objectContaining({ state: 'held', orderId: null })]);
  }, 120_000);
});

describe('the listener stopped between a message’s ACK and its hand-off to the order', () => {
  it('hands the stored message over on a sweep; handed over twice, it moves the order once', async () => {
    const orderId = await orderAwaitingResults();
    // Stored, committed and ACKed; then the listener died before handing it over.
    const controlId = `SWEPT-${orderId.slice(0, 8)}`;
    const [{ message }] = await stack.api.get(Hl7Repository).storeInbound([
      {
        peerFacility: LAB_FACILITY,
        controlId,
        messageType: 'ORU^R01',
        labAccountId,
        fillerNumber: null,
        ackText: 'Message accepted.',
        bodyEnc: stack.api.get(PhiCipher).encrypt(oru(controlId, orderId, 'P', [[components[0].loinc, '77']], '20261128090000')),
      },
    ]);
    expect(message.state).toBe('received');

    // The listener back: its sweep finds the message and hands it over.
    const delivery = stack.api.get(Hl7InboundDelivery);
    expect(await delivery.sweep(0)).toBeGreaterThanOrEqual(1);
    await delivery.idle();
    const stateOf = async () => (await stack.db.query(`SELECT state, order_id FROM hl7_messages WHERE id = $1`, [message.id]))[0];
    expect(await stateOf()).toEqual({ state: 'processed', order_id: orderId });
    await orderReaches(stack, tenant, orderId, 'partial_results');

    // Signalled, but the mark was lost (the listener died again): the next sweep signals again.
    await stack.db.query(`UPDATE hl7_messages SET state = 'received' WHERE id = $1`, [message.id]);
    await delivery.sweep(0);
    await delivery.idle();
    expect(await stateOf()).toEqual({ state: 'processed', order_id: orderId });
    // The order's workflow took the message once: one partial_results, with nothing waiting.
    const handle = stack.temporal.workflow.getHandle(orderWorkflowId(orderId));
    await eventually(async () => ((await handle.query(orderState)).pending?.facts === 0 ? true : undefined), 'the workflow to take the signal');
    const events = (await orderReaches(stack, tenant, orderId, 'partial_results')).events.map((event: any) => event.status.split('.')[2]);
    expect(events.filter((low: string) => low === 'partial_results')).toHaveLength(1);
  }, 120_000);

  it('with the hand-off in a process of its own (roles hl7-listener and hl7-handoff): claimed once, handed over, the order moves', async () => {
    const orderId = await orderAwaitingResults();
    // What a listener of role hl7-listener leaves: stored, committed and ACKed, handed over by nobody yet.
    const controlId = `SPLIT-${orderId.slice(0, 8)}`;
    const repository = stack.api.get(Hl7Repository);
    const [{ message }] = await repository.storeInbound([
      {
        peerFacility: LAB_FACILITY,
        controlId,
        messageType: 'ORU^R01',
        labAccountId,
        fillerNumber: null,
        ackText: 'Message accepted.',
        bodyEnc: stack.api.get(PhiCipher).encrypt(oru(controlId, orderId, 'P', [[components[0].loinc, '77']], '20261128090000')),
      },
    ]);
    // A hand-off claims it (and stops before handing it over): another does not take it within the lease.
    const claimWaiting = async () => [...(await repository.claimForHandOver(60_000, await repository.waitingForHandOver(60_000, 1000)))];
    expect(await claimWaiting()).toContain(message.id);
    expect(await claimWaiting()).not.toContain(message.id);
    // The lease over (0 here), the next hand-off takes it.
    const stop = stack.api.get(Hl7InboundDelivery).startHandingOff(50, 0);
    try {
      const stateOf = async () => (await stack.db.query(`SELECT state, order_id FROM hl7_messages WHERE id = $1`, [message.id]))[0];
      await eventually(async () => ((await stateOf()).state === 'processed' ? true : undefined), 'the hand-off to take the message');
      expect(await stateOf()).toEqual({ state: 'processed', order_id: orderId });
    } finally {
      await stop();
    }
    await orderReaches(stack, tenant, orderId, 'partial_results');
  }, 120_000);

  it('two hand-offs claiming at once: each stored message is claimed, matched and recorded by one of them', async () => {
    const orderId = await orderAwaitingResults();
    const repository = stack.api.get(Hl7Repository);
    const cipher = stack.api.get(PhiCipher);
    const stored = await repository.storeInbound(
      [1, 2, 3].map((n) => {
        const controlId = `RACE-${n}-${orderId.slice(0, 8)}`;
        return {
          peerFacility: LAB_FACILITY,
          controlId,
          messageType: 'ORU^R01',
          labAccountId,
          fillerNumber: null,
          ackText: 'Message accepted.',
          bodyEnc: cipher.encrypt(oru(controlId, orderId, 'P', [[components[0].loinc, '77']], '20261128090000')),
        };
      }),
    );
    const ids = stored.map(({ message }) => message.id);
    // Both read the same rows before either writes, then both claim them with their order.
    const [firstRead, secondRead] = await Promise.all([repository.waitingForHandOver(60_000, 1000), repository.waitingForHandOver(60_000, 1000)]);
    const claim = (read: Array<{ id: string }>) =>
      repository.claimForHandOver(
        60_000,
        read.filter((row) => ids.includes(row.id)).map((row) => ({ id: row.id, orderId })),
      );
    const [first, second] = await Promise.all([claim(firstRead), claim(secondRead)]);
    const claimedIds = [...first, ...second].filter((id) => ids.includes(id));
    expect(claimedIds.sort()).toEqual([...ids].sort());
    const rows: Array<{ state: string; order_id: string }> = await stack.db.query(`SELECT state, order_id FROM hl7_messages WHERE id = ANY($1::uuid[])`, [ids]);
    expect(rows).toEqual(ids.map(() => ({ state: 'received', order_id: orderId })));
    await stack.db.query(`DELETE FROM hl7_messages WHERE id = ANY($1::uuid[])`, [ids]);
  }, 120_000);
});
