import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeDemoPatient } from '../../scripts/compose-demo-patient';
import { DEMO_PATIENT_CLIENT_USER_ID, ensureDemoPatient } from '../../scripts/demo-patient';
import { DEMO_TEAM_ID } from '../../scripts/seed';
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

  it('without a state file finds the user’s order through the API', async () => {
    const other = await createTenant(stack.db);
    const first = await ensureDemoPatient(stack.apiUrl, other.apiKey, null);
    const again = await ensureDemoPatient(stack.apiUrl, other.apiKey, null);
    expect(first).toMatchObject({ user: 'created now', order: 'created now' });
    expect(again).toMatchObject({ userId: first.userId, orderId: first.orderId, user: 'reused', order: 'reused' });
  });

  it('docker compose’s demo patient: made for the demo team with a key that is revoked afterwards; a later start reuses user and order', async () => {
    const first = await composeDemoPatient(stack.apiUrl, stack.config.databaseUrl);
    const second = await composeDemoPatient(stack.apiUrl, stack.config.databaseUrl);
    expect(second).toMatchObject({ userId: first.userId, orderId: first.orderId, user: 'reused', order: 'reused' });
    expect(new URL(second.portalUrl).pathname).toMatch(/^\/p\/[0-9A-Za-z]{8}$/);
    expect(second.portalUrl).not.toBe(first.portalUrl);

    const [owner] = await stack.db.query(`SELECT team_id, environment FROM users WHERE id = $1`, [first.userId]);
    expect(owner).toEqual({ team_id: DEMO_TEAM_ID, environment: 'sandbox' });
    const keys: Array<{ revoked: boolean }> = await stack.db.query(
      `SELECT revoked_at IS NOT NULL AS revoked FROM team_api_keys WHERE team_id = $1 AND label LIKE 'demo patient (docker compose%'`,
      [DEMO_TEAM_ID],
    );
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(keys.every((key) => key.revoked)).toBe(true);
  });

  it('ignores a kept order that is not the demo patient’s (another team’s state file)', async () => {
    const statePath = join(dir, 'other.json');
    const other = await createTenant(stack.db);
    const theirs = await ensureDemoPatient(stack.apiUrl, other.apiKey, statePath);
    const fresh = await createTenant(stack.db);
    const ours = await ensureDemoPatient(stack.apiUrl, fresh.apiKey, statePath);
    expect(ours).toMatchObject({ user: 'created now', order: 'created now' });
    expect(ours.orderId).not.toBe(theirs.orderId);
    expect(ours.userId).not.toBe(theirs.userId);
    expect(JSON.parse(readFileSync(statePath, 'utf8'))).toEqual({ user_id: ours.userId, order_id: ours.orderId });
  });
});
