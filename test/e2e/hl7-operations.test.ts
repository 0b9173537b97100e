import { Hl7Message } from '@medplum/core';
import { Hl7Client, type Hl7Connection, Hl7Server } from '@medplum/hl7';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ServiceError } from '@temporalio/client';
import { OrderWorkflows } from '../../src/orders/order-workflows';
import { type Hl7Listener } from '../../src/hl7/hl7-listener';
import { TeamEntity } from '../../src/tenancy/entities';
import { orderState, orderWorkflowId } from '../../workflows/contract';
import { runCli } from '../helpers/cli';
import { eventually } from '../helpers/eventually';
import { createOnSiteLabOrder, ON_SITE_CMP, orderReaches, startOrderStack } from '../helpers/orders';
import { call, createTenant, subscribeWebhooks, type Tenant, type TestStack } from '../helpers/stack';
import { waitFor, WebhookReceiver } from '../helpers/webhook-receiver';
import { insertLabAccount, startTestHl7Listener } from '../helpers/hl7';

/**
 * Operating an HL7 lab: the messages of an order and the held ones on the management API
 * (envelopes only, the team's own; another team's or org's is a 404), a message's body through
 * the ops CLI only, audited, the partial results readable while the order waits for the rest,
 * and a correction the lab sends after the order completed (the corrected status, its webhook,
 * the corrected values). Real MLLP sockets: an Hl7Server of @medplum/hl7 is the lab's interface.
 */
const LAB_FACILITY = `OPS-${randomUUID().slice(0, 8)}`;

let stack: TestStack;
let tenant: Tenant;
let userId: string;
let listener: Hl7Listener;
let lab: Hl7Server;
let labAccountId: string;
let receiver: WebhookReceiver;
/** The first CMP component (the lab's code GLU-7) and the others, by LOINC. */
let glucose: { id: number; slug: string };
let others: Array<{ slug: string; name: string; loinc: string }>;
let panelId: number;

beforeAll(async () => {
  ({ stack, tenant, userId } = await startOrderStack({ management: true, events: true, env: { EVENTS_RELAY_POLL_INTERVAL: '200ms' } }));
  receiver = await WebhookReceiver.start();
  await subscribeWebhooks(stack, tenant, 'sandbox', receiver, '/orders', ['labtest.order.updated']);
  listener = await startTestHl7Listener(stack);
  lab = new Hl7Server((connection: Hl7Connection) => {
    connection.addEventListener('message', ({ message }: { message: Hl7Message }) => connection.send(message.buildAck({ ackCode: 'AA' })));
  });
  lab.start(0);
  await new Promise((resolve) => lab.server!.once('listening', resolve));

  const [test] = await stack.db.query(`SELECT lab_id FROM lab_tests WHERE id = $1`, [ON_SITE_CMP]);
  [{ marker_id: panelId }] = await stack.db.query(`SELECT marker_id FROM lab_test_markers WHERE lab_test_id = $1 ORDER BY position LIMIT 1`, [ON_SITE_CMP]);
  const components: Array<{ id: number; name: string; slug: string; loinc: string }> = await stack.db.query(
    `SELECT m.id, m.name, m.slug, l.code AS loinc FROM lab_panel_members p JOIN lab_markers m ON m.id = p.member_id JOIN loinc_codes l ON l.id = m.loinc_id
      WHERE p.panel_id = $1 ORDER BY p.position`,
    [panelId],
  );
  [glucose, ...others] = components;
  labAccountId = randomUUID();
  await insertLabAccount(stack, { id: labAccountId, teamId: tenant.teamId, labId: test.lab_id, providerAccountId: 'OPS-ACCT-1', name: 'Lab over HL7' });
  const settings = {
    host: '127.0.0.1',
    port: (lab.server!.address() as AddressInfo).port,
    sendingApplication: 'LABFLOW',
    sendingFacility: 'LABFLOW-TEST',
    receivingApplication: 'OPSLAB',
    receivingFacility: LAB_FACILITY,
    version: '2.5.1',
    orderMessageType: 'OML^O21',
    testCodes: { [panelId]: { code: '10231', text: 'CMP' }, [glucose.id]: { code: 'GLU-7', text: 'Glucose' } },
  };
  expect((await runCli(['hl7', 'configure', labAccountId, '--settings', JSON.stringify(settings)], {})).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await listener?.close();
  await lab?.stop({ forceDrainTimeoutMs: 100 });
  await stack?.close();
  await receiver?.close();
});

function createOrder(): Promise<string> {
  return createOnSiteLabOrder(stack, tenant, userId, labAccountId);
}

/** The order's run has taken in its requisition and waits for the draw; then the draw is reported. */
async function drawn(orderId: string): Promise<void> {
  await orderReaches(stack, tenant, orderId, 'requisition_created');
  await eventually(
    async () => ((await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).query(orderState)).stage === 'awaiting_draw' ? true : undefined),
    `order ${orderId} awaiting the draw`,
  );
  expect((await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/draw_completed`, { key: tenant.apiKey })).status).toBe(200);
}

/** An ORU^R01 for `placer`: OBR-25 `status`, the observations as given. */
function oru(controlId: string, placer: string, status: 'P' | 'F' | 'C', observations: string[]): Hl7Message {
  return Hl7Message.parse(
    [
      `MSH|^~\\&|OPSLAB|${LAB_FACILITY}|LABFLOW|LABFLOW-TEST|20261128120000||ORU^R01^ORU_R01|${controlId}|P|2.5.1`,
      'PID|1||PAT-1^^^OPSLAB||OKONKWO^MARGUERITE||19860412|F',
      `ORC|RE|${placer}^LABFLOW|ACC-${placer.slice(0, 6)}^OPSLAB||${status === 'P' ? 'A' : 'CM'}`,
      `OBR|1|${placer}^LABFLOW|ACC-${placer.slice(0, 6)}^OPSLAB|10231^CMP^L|||20261128080000|||||||||||||||20261128115900|||${status}`,
      ...observations,
    ].join('\r'),
  );
}

async function sendToListener(message: Hl7Message): Promise<string> {
  const client = new Hl7Client({ host: '127.0.0.1', port: listener.port });
  try {
    return (await client.sendAndWait(message, { timeoutMs: 10_000 })).getSegment('MSA')!.getComponent(1, 1);
  } finally {
    await client.close();
  }
}

const management = (key: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
  call(stack.managementUrl, method, path, { headers: { 'X-Management-Key': key }, body });
const teamPath = (path: string, team: Pick<Tenant, 'orgId' | 'teamId'> = tenant) => `/v1/org/${team.orgId}/team/${team.teamId}${path}`;

describe('HL7 messages on the management API', () => {
  it("lists an order's messages and the held ones as envelopes, shows and re-matches a held one, and answers 404 for another team's or org's", async () => {
    const orderId = await createOrder();
    await orderReaches(stack, tenant, orderId, 'requisition_created');

    const listed = await management(tenant.managementKey, 'GET', teamPath(`/order/${orderId}/hl7_messages`));
    expect(listed.status).toBe(200);
    expect(listed.body.hl7_messages).toEqual([
      expect.objectContaining({
        direction: 'out',
        message_type: 'OML^O21',
        peer_facility: LAB_FACILITY,
        state: 'accepted',
        ack_code: 'AA',
        order_id: orderId,
        lab_account_id: labAccountId,
      }),
    ]);
    // Envelopes only: nothing of the body (the patient's name is in it).
    expect(JSON.stringify(listed.body)).not.toMatch(/okonkwo|body/i);

    // A result naming an order labflow does not have: ACKed, held, listed for the team whose lab account it came from.
    const stray = randomUUID();
    const strayControlId = `HELD-${stray.slice(0, 8)}`;
    expect(await sendToListener(oru(strayControlId, stray, 'P', ['OBX|1|NM|GLU-7^Glucose^L||88|mg/dL|70-99|N|||P']))).toBe('AA');
    // Matching comes after the ACK: held once the listener found no order for it.
    const heldRow = await eventually(
      async () =>
        (await management(tenant.managementKey, 'GET', teamPath('/hl7_messages/held'))).body.hl7_messages.find((row: any) => row.control_id === strayControlId),
      'the stray result to be held',
    );
    expect(heldRow).toMatchObject({ direction: 'in', message_type: 'ORU^R01', state: 'held', order_id: null, ack_code: 'AA', lab_account_id: labAccountId });
    const shown = await management(tenant.managementKey, 'GET', teamPath(`/hl7_messages/${heldRow.id}`));
    expect(shown.status).toBe(200);
    expect(shown.body.reported_orders).toEqual([
      {
        placer_order_number: stray,
        filler_order_number: `ACC-${stray.slice(0, 6)}`,
        order_control: 'RE',
        order_status: 'A',
        result_status: 'P',
        observation_count: 1,
      },
    ]);
    expect(JSON.stringify(shown.body)).not.toMatch(/okonkwo/i);

    // Another team of the same org, and another org: the order, its messages and the held message are unknown to them.
    const otherTeam = await stack.db.getRepository(TeamEntity).save({
      id: randomUUID(),
      orgId: tenant.orgId,
      name: `Other ${randomUUID().slice(0, 6)}`,
      region: 'us',
      integrationTeamId: null,
      partialWebhooksEnabled: false,
    });
    const sameOrgOtherTeam = { orgId: tenant.orgId, teamId: otherTeam.id };
    expect((await management(tenant.managementKey, 'GET', teamPath(`/order/${orderId}/hl7_messages`, sameOrgOtherTeam))).status).toBe(404);
    expect((await management(tenant.managementKey, 'GET', teamPath(`/hl7_messages/${heldRow.id}`, sameOrgOtherTeam))).status).toBe(404);
    expect(
      (await management(tenant.managementKey, 'GET', teamPath('/hl7_messages/held', sameOrgOtherTeam))).body.hl7_messages.map((row: any) => row.id),
    ).not.toContain(heldRow.id);
    expect(
      (await management(tenant.managementKey, 'POST', teamPath(`/hl7_messages/${heldRow.id}/rematch`, sameOrgOtherTeam), { order_id: orderId })).status,
    ).toBe(404);
    const otherOrg = await createTenant(stack.db);
    expect((await management(otherOrg.managementKey, 'GET', teamPath(`/order/${orderId}/hl7_messages`, otherOrg))).status).toBe(404);
    expect((await management(otherOrg.managementKey, 'GET', teamPath(`/hl7_messages/${heldRow.id}`, otherOrg))).status).toBe(404);
    expect((await management(otherOrg.managementKey, 'GET', teamPath(`/order/${orderId}/hl7_messages`))).status).toBe(404);

    // Temporal down: the rematch answers 503 and writes nothing; the message stays held, unmatched.
    const down = jest
      .spyOn(OrderWorkflows.prototype, 'handle')
      .mockReturnValue({ signal: () => Promise.reject(new ServiceError('14 UNAVAILABLE: No connection established')) } as never);
    try {
      const refused = await management(tenant.managementKey, 'POST', teamPath(`/hl7_messages/${heldRow.id}/rematch`), { order_id: orderId });
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toMatch(/still held/);
    } finally {
      down.mockRestore();
    }
    expect(await stack.db.query(`SELECT state, order_id FROM hl7_messages WHERE id = $1`, [heldRow.id])).toEqual([{ state: 'held', order_id: null }]);

    // Re-matched by hand to the order: handed to it, no longer held, listed with the order's messages.
    const rematched = await management(tenant.managementKey, 'POST', teamPath(`/hl7_messages/${heldRow.id}/rematch`), { order_id: orderId });
    expect(rematched.status).toBe(200);
    expect(rematched.body).toMatchObject({ id: heldRow.id, state: 'processed', order_id: orderId });
    expect((await management(tenant.managementKey, 'GET', teamPath('/hl7_messages/held'))).body.hl7_messages.map((row: any) => row.id)).not.toContain(
      heldRow.id,
    );
    expect((await management(tenant.managementKey, 'GET', teamPath(`/order/${orderId}/hl7_messages`))).body.hl7_messages.map((row: any) => row.id)).toContain(
      heldRow.id,
    );
    const again = await management(tenant.managementKey, 'POST', teamPath(`/hl7_messages/${heldRow.id}/rematch`), {});
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('not held');
  }, 90_000);
});

describe('a message body through the ops CLI', () => {
  it('is shown decrypted, and each view is in the PHI access log with the operator', async () => {
    const orderId = await createOrder();
    await orderReaches(stack, tenant, orderId, 'requisition_created');
    const [message] = (await management(tenant.managementKey, 'GET', teamPath(`/order/${orderId}/hl7_messages`))).body.hl7_messages;
    const before = await runCli(['phi-log', 'order', orderId], {});
    expect(before.stdout).not.toContain(`hl7_message ${message.id}`);

    const shown = await runCli(['hl7', 'show', message.id], {});
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`${message.id} out OML^O21 ${message.control_id}`);
    expect(shown.stdout).toMatch(/^PID\|.*Okonkwo\^Marguerite/m);
    expect(shown.stdout).toMatch(new RegExp(`^ORC\\|NW\\|${orderId}`, 'm'));

    const log = await runCli(['--json', 'phi-log', 'order', orderId], {});
    const views = log.json.filter((row: any) => row.resource === 'hl7_message' && row.resource_id === message.id);
    expect(views).toEqual([expect.objectContaining({ action: 'read', team_id: tenant.teamId, actor: expect.stringMatching(/^cli:.+@.+/), api_key: null })]);
    await runCli(['hl7', 'show', message.id], {});
    expect((await runCli(['--json', 'phi-log', 'order', orderId], {})).json.filter((row: any) => row.resource === 'hl7_message')).toHaveLength(2);
    expect((await runCli(['hl7', 'show', randomUUID()], {})).code).toBe(3);
  }, 90_000);
});

describe('results from an HL7 lab', () => {
  it('reads partial results while the rest are pending, and a correction after completion sends the corrected status with the corrected values', async () => {
    const orderId = await createOrder();
    await drawn(orderId);
    expect((await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey })).status).toBe(404);

    expect(await sendToListener(oru(`P-${orderId.slice(0, 8)}`, orderId, 'P', ['OBX|1|NM|GLU-7^Glucose^L||92|mg/dL|70-99|N|||P']))).toBe('AA');
    await orderReaches(stack, tenant, orderId, 'partial_results');
    const partial = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
    expect(partial.status).toBe(200);
    expect(partial.body.metadata.status).toBe('partial');
    expect(partial.body.results).toEqual([expect.objectContaining({ slug: glucose.slug, result: '92', unit: 'mg/dL' })]);

    const finals = [
      'OBX|1|NM|GLU-7^Glucose^L||92|mg/dL|70-99|N|||F',
      ...others.map((marker, index) => `OBX|${index + 2}|NM|${marker.loinc}^${marker.name}^LN||${10 + index}|U|5-50|N|||F`),
    ];
    expect(await sendToListener(oru(`F-${orderId.slice(0, 8)}`, orderId, 'F', finals))).toBe('AA');
    await orderReaches(stack, tenant, orderId, 'completed');
    const final = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
    expect(final.body.metadata.status).toBe('final');
    expect(final.body.results.find((row: any) => row.slug === glucose.slug)).toMatchObject({ result: '92', interpretation: 'normal' });

    // The lab corrects the glucose after the order completed (its workflow has ended).
    const correction = oru(`C-${orderId.slice(0, 8)}`, orderId, 'C', ['OBX|1|NM|GLU-7^Glucose^L||131|mg/dL|70-99|H|||C']);
    expect(await sendToListener(correction)).toBe('AA');
    const corrected = await orderReaches(stack, tenant, orderId, 'corrected');
    expect(corrected.status).toBe('completed');
    expect(corrected.last_event.status).toBe('completed.on_site_collection.corrected');
    const webhook = await waitFor(() =>
      receiver.accepted('/orders').find((request) => request.json?.data?.id === orderId && request.json?.data?.last_event?.status?.endsWith('.corrected')),
    );
    expect(webhook.verified).toBe(true);
    expect(webhook.json).toMatchObject({ event_type: 'labtest.order.updated', data: { id: orderId, status: 'completed' } });
    const after = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
    expect(after.body.metadata.status).toBe('final');
    expect(after.body.results.find((row: any) => row.slug === glucose.slug)).toMatchObject({
      result: '131',
      interpretation: 'abnormal',
      is_above_max_range: true,
    });
    expect(after.body.results).toHaveLength(others.length + 1);

    // The same correction again (the lab missed the ACK): ACKed, and no second corrected event.
    expect(await sendToListener(correction)).toBe('AA');
    const events = (await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey })).body.events.map(
      (event: any) => event.status.split('.')[2],
    );
    expect(events.filter((status: string) => status === 'corrected')).toHaveLength(1);
  }, 120_000);
});
