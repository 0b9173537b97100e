import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_PATIENT_CLIENT_USER_ID, ensureDemoPatient } from '../../scripts/demo-patient';
import { startOrderStack } from '../helpers/orders';
import { call, createTenant, type Tenant, type TestStack } from '../helpers/stack';

/** `npm run up` prints a patient portal link: scripts/demo-patient.ts makes it through the API. */
describe('the demo patient of npm run up', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let dir: string;

  beforeAll(async () => {
    ({ stack, tenant } = await startOrderStack());
    dir = mkdtempSync(join(tmpdir(), 'labflow-demo-patient-'));
  });
  afterAll(async () => {
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('makes a user with a test-kit order and a portal link that opens on the one-time-code page; a second run reuses both and mints a new link', async () => {
    const statePath = join(dir, 'demo-patient.json');
    const first = await ensureDemoPatient(stack.apiUrl, tenant.apiKey, statePath);
    expect(first).toMatchObject({ user: 'created now', order: 'created now' });
    expect(JSON.parse(readFileSync(statePath, 'utf8'))).toEqual({ user_id: first.userId, order_id: first.orderId });

    const user = await call(stack.apiUrl, 'GET', `/v2/user/${first.userId}`, { key: tenant.apiKey });
    expect(user.body.client_user_id).toBe(DEMO_PATIENT_CLIENT_USER_ID);
    const order = await call(stack.apiUrl, 'GET', `/v3/order/${first.orderId}`, { key: tenant.apiKey });
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({ user_id: first.userId, patient_details: { first_name: 'Dana', last_name: 'Demo' } });
    expect(order.body.details.type).toBe('testkit');

    const link = new URL(first.portalUrl);
    expect(link.pathname).toMatch(/^\/p\/[0-9A-Za-z]{8}$/);
    const page = await fetch(`${stack.apiUrl}${link.pathname}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`action="${link.pathname}/send"`);

    const second = await ensureDemoPatient(stack.apiUrl, tenant.apiKey, statePath);
    expect(second).toMatchObject({ userId: first.userId, orderId: first.orderId, user: 'reused', order: 'reused' });
    expect(second.portalUrl).not.toBe(first.portalUrl);
  });

  it('orders again when the kept order is not the demo patient’s (another team’s state file)', async () => {
    const statePath = join(dir, 'other.json');
    const other = await createTenant(stack.db);
    const theirs = await ensureDemoPatient(stack.apiUrl, other.apiKey, statePath);
    const ours = await ensureDemoPatient(stack.apiUrl, tenant.apiKey, statePath);
    expect(ours.order).toBe('created now');
    expect(ours.orderId).not.toBe(theirs.orderId);
    expect(ours.userId).not.toBe(theirs.userId);
  });
});
