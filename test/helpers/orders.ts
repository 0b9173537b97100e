import type { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { signPartnerWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../src/adapters/partner-signature';
import { call, createTenant, runUntilStopped, type StackOptions, startStack, type Tenant, type TestStack } from './stack';
import { eventually } from './eventually';
import { addDays } from '../../src/appointments/zoned-time';

/** Seeded global lab tests (src/db/migrations/1763790002001-lab-catalog-seed.ts). */
export const LIPID_PANEL_KIT = '1ab7e570-0000-4000-8000-000000000001';
export const VITAMIN_D_KIT = '1ab7e570-0000-4000-8000-000000000002';
export const WALK_IN_CMP = '1ab7e570-0000-4000-8000-000000000003';
export const THYROID_AT_HOME = '1ab7e570-0000-4000-8000-000000000007';
/** Quest's on-site CMP (src/db/migrations/1763790260000-on-site-collection-test.ts). */
export const ON_SITE_CMP = '1ab7e570-0000-4000-8000-00000000000c';

/**
 * An appointment availability start date 30 to 360 days ahead, different per call: slots (a
 * provider's seats) are shared by every team, so each test books in a window of its own. Never
 * one whose 14 days reach into March: the availability test reads March's slots untouched
 * (dstWeek below), and a booking there took the first slot it asserts.
 */
export function someStartDate(): string {
  for (;;) {
    const date = new Date(Date.now() + (30 + Math.floor(Math.random() * 330)) * 24 * 3600_000).toISOString().slice(0, 10);
    const monthDay = date.slice(5);
    if (monthDay < '02-10' || monthDay > '03-31') return date;
  }
}

/** The second Sunday of March: the day US daylight saving time starts. */
function usDaylightSavingStart(year: number): string {
  const firstWeekday = new Date(Date.UTC(year, 2, 1)).getUTCDay();
  const firstSunday = 1 + ((7 - firstWeekday) % 7);
  return `${year}-03-${String(firstSunday + 7).padStart(2, '0')}`;
}

/**
 * The next week around the start of US daylight saving time that availability queries may ask
 * for (start_date from tomorrow to within a year): `start` is a Wednesday 4 days before the change,
 * or 11 when 4 would be more than a year away; the Friday before the change, its Sunday and the
 * Monday after are among the 14 days from `start`. No test books in March (someStartDate).
 */
export function dstWeek(nowMs = Date.now()): { start: string; friday: string; sunday: string; monday: string } {
  const tomorrow = addDays(new Date(nowMs).toISOString().slice(0, 10), 1);
  const year = new Date(nowMs).getUTCFullYear();
  const sunday = [year, year + 1].map(usDaylightSavingStart).find((day) => addDays(day, -4) >= tomorrow)!;
  const start = addDays(sunday, -4) > addDays(tomorrow, 360) ? addDays(sunday, -11) : addDays(sunday, -4);
  return { start, friday: addDays(sunday, -2), sunday, monday: addDays(sunday, 1) };
}

/** The partner webhook secret order test stacks run with. */
export const PARTNER_SECRET = 'test-partner-webhook-secret';

/** Environment for a stack that runs order lifecycles in seconds. */
export const ORDER_TEST_ENV: Record<string, string> = {
  PARTNER_WEBHOOK_SECRET: PARTNER_SECRET,
  SANDBOX_STEP_DELAY: '200ms',
  ORDER_REGISTRATION_WINDOW: '1h',
  ORDER_SAMPLE_TO_LAB_WINDOW: '1h',
};

/** A stack running order lifecycles in seconds (ORDER_TEST_ENV), with one tenant and one user of it. */
export async function startOrderStack(options: StackOptions = {}): Promise<{ stack: TestStack; tenant: Tenant; userId: string }> {
  const stack = await startStack({ ...options, env: { ...ORDER_TEST_ENV, ...options.env } });
  const tenant = await createTenant(stack.db);
  return { stack, tenant, userId: await createUser(stack, tenant) };
}

export async function createUser(stack: TestStack, tenant: Tenant): Promise<string> {
  const response = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `order-${randomUUID()}` } });
  if (response.status !== 200) throw new Error(`user not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.user_id as string;
}

export const patientDetails = () => ({
  first_name: 'Marguerite',
  last_name: 'Okonkwo',
  dob: '1986-04-12',
  gender: 'female',
  phone_number: '+14155550123',
  email: 'marguerite@example.com',
});

export const patientAddress = () => ({
  receiver_name: 'Marguerite Okonkwo',
  first_line: '1 Market St',
  second_line: 'Suite 5',
  city: 'San Francisco',
  state: 'CA',
  zip: '94105',
  country: 'US',
  phone_number: '+14155550123',
});

export const orderBody = (userId: string, overrides: Record<string, unknown> = {}) => ({
  user_id: userId,
  lab_test_id: LIPID_PANEL_KIT,
  patient_details: patientDetails(),
  patient_address: patientAddress(),
  ...overrides,
});

export const testkitBody = (userId: string, overrides: Record<string, unknown> = {}) => ({
  user_id: userId,
  lab_test_id: VITAMIN_D_KIT,
  shipping_details: {
    receiver_name: 'Marguerite Okonkwo',
    first_line: '1 Market St',
    city: 'San Francisco',
    state: 'CA',
    zip: '94105',
    country: 'US',
    phone_number: '+14155550123',
  },
  ...overrides,
});

export { eventually };

/**
 * How long a test waits for an order to reach a status. A sandbox play of a whole lifecycle is
 * ~8 partner reports, each a webhook, a workflow step and a read-model write: seconds when the
 * machine is quiet, but CI runs three Jest workers beside each other on two cores, where one play
 * took over 30 s (stop 51's run, orders-sdk). Waiting longer costs nothing when the order arrives;
 * under Jest's 90 s test timeout, so a wait that runs out says which order and status it waited for.
 */
const ORDER_WAIT_MS = 75_000;

/** Polls GET /v3/order/{id} until its low-level status (last event) is `low`. */
export async function orderReaches(stack: TestStack, tenant: Tenant, orderId: string, low: string, timeoutMs = ORDER_WAIT_MS) {
  return eventually(
    async () => {
      const response = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey });
      const status: string | undefined = response.body?.last_event?.status;
      return status?.split('.')[2] === low ? response.body : undefined;
    },
    `order ${orderId} to reach ${low}`,
    timeoutMs,
  );
}

/**
 * Polls GET /v3/order/{id} until its events include `low`, whether or not it is still the last
 * one: for a status the order may leave before a poll sees it (a running simulation or callbacks).
 */
export async function orderPassed(stack: TestStack, tenant: Tenant, orderId: string, low: string, timeoutMs = ORDER_WAIT_MS) {
  return eventually(
    async () => {
      const response = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey });
      const events: Array<{ status: string }> = response.body?.events ?? [];
      return events.some((event) => event.status.split('.')[2] === low) ? response.body : undefined;
    },
    `order ${orderId} to pass ${low}`,
    timeoutMs,
  );
}

/** POSTs a signed partner webhook (courier tracking or lab event). */
export function partnerWebhook(stack: TestStack, kind: 'courier' | 'lab', body: unknown, secret = PARTNER_SECRET, partner = 'sandbox') {
  const timestamp = Math.floor(Date.now() / 1000);
  return call(stack.apiUrl, 'POST', `/v3/webhooks/${kind}/${partner}`, {
    body,
    headers: { [TIMESTAMP_HEADER]: String(timestamp), [SIGNATURE_HEADER]: signPartnerWebhook(secret, timestamp, body) },
  });
}

/** The order's outbox events (decrypted payloads aside): type and the event status they carry. */
export async function outboxEvents(stack: TestStack, teamId: string, orderId: string): Promise<Array<{ event_type: string; status: string }>> {
  const { PhiCipher } = await import('../../src/common/crypto');
  const cipher = stack.api.get(PhiCipher);
  const rows: Array<{ event_type: string; data_enc: string }> = await stack.db.query(
    `SELECT event_type, data_enc FROM event_outbox WHERE team_id = $1 ORDER BY created_at, id`,
    [teamId],
  );
  return rows
    .map((row) => ({ type: row.event_type, data: cipher.decryptJson<any>(row.data_enc) }))
    .filter((row) => row.data?.id === orderId || row.data?.order_id === orderId)
    .map((row) => ({ event_type: row.type, status: row.data?.last_event?.status ?? row.data?.interpretation ?? '' }));
}

/**
 * A Temporal worker for a stack started with `worker: false`, on the stack's task queue, that a
 * test can stop (as a crash would) and replace with a fresh one: the new worker has no workflow
 * cache and must replay each history to continue.
 */
export async function startReplaceableWorker(stack: TestStack): Promise<{ stop(): Promise<void> }> {
  const { createLabflowWorker } = await import('../../src/temporal-worker');
  const codePath = process.env.LABFLOW_WORKFLOW_BUNDLE;
  if (!codePath) throw new Error('LABFLOW_WORKFLOW_BUNDLE is not set: run tests through jest (global setup).');
  const { worker, connection } = await createLabflowWorker(stack.api, stack.config, {
    taskQueue: stack.taskQueue,
    workflowBundle: { codePath },
    partnersApiUrl: stack.apiUrl,
  });
  return { stop: runUntilStopped(worker, connection) };
}

/** Downtown Phoenix (zip 85004, inside the sandbox phlebotomy area), as the SDK spells an address. */
export const PHOENIX = { firstLine: '200 W Washington St', city: 'Phoenix', state: 'AZ' };

/** The ordering physician of the HL7 suites' orders (ORC-12 / OBR-16 carry the NPI). */
export const HL7_PHYSICIAN = { first_name: 'Imani', last_name: 'Castellanos', npi: '1234567893' };

/** An on-site CMP at a lab account (an HL7 lab's, in the HL7 suites), its patient in Phoenix; answers the order id. */
export async function createOnSiteLabOrder(
  stack: TestStack,
  tenant: Tenant,
  userId: string,
  labAccountId: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const created = await call(stack.apiUrl, 'POST', '/v3/order', {
    key: tenant.apiKey,
    body: orderBody(userId, {
      lab_test_id: ON_SITE_CMP,
      lab_account_id: labAccountId,
      physician: HL7_PHYSICIAN,
      ...extra,
      patient_address: {
        receiver_name: 'Marguerite Okonkwo',
        first_line: PHOENIX.firstLine,
        city: PHOENIX.city,
        state: PHOENIX.state,
        zip: '85004',
        country: 'US',
      },
    }),
  });
  expect(created.status).toBe(200);
  return created.body.order.id as string;
}

/**
 * Creates a new user and a lab order for them through `@tryvital/vital-node`: Imogen Achterberg
 * in Phoenix, with a physician (delegated lab accounts need one). Returns the order id.
 */
export async function createSdkOrderInPhoenix(client: VitalClient, stack: TestStack, tenant: Tenant, labTestId: string): Promise<string> {
  const userId = await createUser(stack, tenant);
  const created = await client.labTests.createOrder({
    userId,
    labTestId,
    patientDetails: {
      firstName: 'Imogen',
      lastName: 'Achterberg',
      dob: '1983-07-21',
      gender: 'female',
      phoneNumber: '+16025550142',
      email: 'imogen@example.com',
    },
    patientAddress: { ...PHOENIX, receiverName: 'Imogen Achterberg', zip: '85004', country: 'US', phoneNumber: '+16025550142' },
    physician: { firstName: 'Ada', lastName: 'Lovelace', npi: '1234567893' },
  });
  return created.order.id;
}
