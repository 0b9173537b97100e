import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { PortalTokens } from '../../src/portal/portal-tokens';
import { orderWorkflowId } from '../../workflows/contract';
import { launchBrowser, screenshotDir, seriousViolations } from '../helpers/browser';
import { createUser, ORDER_TEST_ENV, orderBody, orderReaches, patientDetails, someStartDate, THYROID_AT_HOME } from '../helpers/orders';
import { codeIn, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp-receiver';
import { call, createTenant, type Tenant, type TestStack, startStack } from '../helpers/stack';

const shots = screenshotDir('portal');
const PHOENIX_ADDRESS = {
  receiver_name: 'Marguerite Okonkwo',
  first_line: '200 W Washington St',
  city: 'Phoenix',
  state: 'AZ',
  zip: '85004',
  country: 'US',
  phone_number: '+14155550123',
};

/** Bytes the browser transferred for the page it shows: the document, its redirect and every subresource. */
async function transferredBytes(page: Page): Promise<number> {
  return page.evaluate<number>(
    "[...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].reduce((sum, entry) => sum + entry.transferSize, 0)",
  );
}

describe('patient portal in Chromium', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let smtp: SmtpReceiver;

  /** A portal URL of this stack (PUBLIC_API_URL is not the random port the test API listens on). */
  async function portalUrl(userId: string, body: Record<string, unknown>): Promise<string> {
    const response = await call(stack.apiUrl, 'POST', `/v2/user/${userId}/create_portal_url`, { key: tenant.apiKey, body });
    expect(response.status).toBe(200);
    return `${stack.apiUrl}${new URL(response.body.url).pathname}`;
  }

  async function order(body: Record<string, unknown> = {}): Promise<{ userId: string; orderId: string }> {
    const userId = await createUser(stack, tenant);
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId, body) });
    expect(created.status).toBe(200);
    return { userId, orderId: created.body.order.id };
  }

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    stack = await startStack({ env: { ...ORDER_TEST_ENV, SMTP_URL: smtp.url } });
    tenant = await createTenant(stack.db, { teamName: 'Acme Health' });
    // A light brand colour on purpose: the portal darkens it until text on it is readable.
    await stack.db.query(`UPDATE teams SET brand_information = $2 WHERE id = $1`, [
      tenant.teamId,
      { company_name: 'Acme Health', primary_color: '#4fa3ff', support_email: 'help@acme.example', support_phone: '+1 415 555 0100' },
    ]);
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.close();
  });

  it('a launch link opens the order: small first page, no serious axe violation', async () => {
    const { userId, orderId } = await order();
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(await portalUrl(userId, { context: 'launch', order_id: orderId }));
      expect(new URL(page.url()).pathname).toBe(`/portal/orders/${orderId}`);
      await expect(page.locator('h1').textContent()).resolves.toContain('Lipid Panel');
      await expect(page.locator('.brand').textContent()).resolves.toBe('Acme Health');
      await expect(page.getByText('Your test was ordered.').count()).resolves.toBeGreaterThan(0);
      await page.screenshot({ path: join(shots, 'launch-order.png'), fullPage: true });
      const bytes = await transferredBytes(page);
      expect(bytes).toBeGreaterThan(0);
      expect(bytes).toBeLessThan(100_000);
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('a communications link asks for a code sent by e-mail, then remembers the device', async () => {
    const { userId, orderId } = await order();
    const link = await portalUrl(userId, { context: 'communications', order_id: orderId });
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(link);
      await expect(page.locator('h1').textContent()).resolves.toContain("Let's check it's you");
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(shots, 'verify-choose.png'), fullPage: true });
      const before = smtp.messages.length;
      await page.getByRole('button', { name: /E-mail a code to m•••@example\.com/ }).click();
      const code = codeIn((await smtp.nextTo(patientDetails().email, before)).text);
      await page.getByLabel('Your 6-digit code').fill(code);
      await page.screenshot({ path: join(shots, 'verify-code.png'), fullPage: true });
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`**/portal/orders/${orderId}`);

      // Later, on the same device: the link opens the order without a code.
      const later = await browser.context.newPage();
      await later.goto(link);
      expect(new URL(later.url()).pathname).toBe(`/portal/orders/${orderId}`);
      expect(smtp.messages.length).toBe(before + 1);
    } finally {
      await browser.close();
    }
  });

  it('a patient books, then reschedules an at-home draw and sees the order move; the workflow history has both Updates', async () => {
    const { userId, orderId } = await order({
      lab_test_id: THYROID_AT_HOME,
      patient_address: PHOENIX_ADDRESS,
      physician: { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' },
    });
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    const startDate = someStartDate();
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(await portalUrl(userId, { context: 'launch', order_id: orderId }));
      await expect(page.getByText('Waiting for you to book an appointment.').count()).resolves.toBeGreaterThan(0);
      await page.getByRole('link', { name: 'Find a time and book' }).click();
      await page.goto(`${page.url()}&start_date=${startDate}`);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(shots, 'slots.png'), fullPage: true });
      await page.locator('input[name=booking_key]').first().check();
      await page.getByRole('button', { name: 'Book this time' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Your appointment is booked.');
      await expect(page.locator('#order-h + p .status').textContent()).resolves.toBe('Your appointment is booked.');
      await page.screenshot({ path: join(shots, 'booked.png'), fullPage: true });
      const bookedAt = await page.locator('#appt-h + p strong').textContent();

      await page.getByRole('link', { name: 'Change the time' }).click();
      await page.goto(`${page.url()}&start_date=${startDate}`);
      await page.locator('input[name=booking_key]').nth(2).check();
      await page.getByRole('button', { name: 'Move my appointment' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Your appointment was moved.');
      expect(await page.locator('#appt-h + p strong').textContent()).not.toBe(bookedAt);
      await expect(page.locator('.timeline li').last().textContent()).resolves.toContain('Your appointment time was changed.');
      await page.screenshot({ path: join(shots, 'rescheduled.png'), fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await browser.close();
    }
    const apiOrder = await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
    expect(apiOrder.events.map((event: { status: string }) => event.status.split('.')[2])).toEqual(
      expect.arrayContaining(['appointment_pending', 'appointment_scheduled']),
    );
    const history = await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).fetchHistory();
    const updates = (history.events ?? []).flatMap((event) =>
      event.workflowExecutionUpdateAcceptedEventAttributes ? [event.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input?.name] : [],
    );
    expect(updates).toEqual(['bookAppointment', 'rescheduleAppointment']);
  });

  it('works at 360 px wide: no sideways scrolling on the order and slot pages', async () => {
    const { userId, orderId } = await order({
      lab_test_id: THYROID_AT_HOME,
      patient_address: PHOENIX_ADDRESS,
      physician: { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' },
    });
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    const browser = await launchBrowser({ width: 360, height: 760 });
    try {
      const page = await browser.context.newPage();
      await page.goto(await portalUrl(userId, { context: 'launch', order_id: orderId }));
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      await page.screenshot({ path: join(shots, 'order-360.png'), fullPage: true });
      await page.getByRole('link', { name: 'Find a time and book' }).click();
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      await page.screenshot({ path: join(shots, 'slots-360.png'), fullPage: false });
    } finally {
      await browser.close();
    }
  });

  it('an expired link shows its page (410), branded, accessible', async () => {
    const { userId } = await order();
    const link = await portalUrl(userId, { context: 'communications' });
    // Links are stored by their code's keyed hash, never the code.
    const codeHash = new PortalTokens(stack.config.phiEncryptionKey).codeDigest(new URL(link).pathname.slice(3));
    await stack.db.query(`UPDATE portal_links SET expires_at = now() - interval '1 second' WHERE code_hash = $1`, [codeHash]);
    const browser = await launchBrowser({ width: 360, height: 760 });
    try {
      const page = await browser.context.newPage();
      const response = await page.goto(link);
      expect(response?.status()).toBe(410);
      await expect(page.locator('h1').textContent()).resolves.toBe('This link has expired');
      await expect(page.locator('.brand').textContent()).resolves.toBe('Acme Health');
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(shots, 'expired.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
