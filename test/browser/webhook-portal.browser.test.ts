import type { Page } from 'playwright-core';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { OutboxService } from '../../src/events/outbox.service';
import { webhookPortalTokens } from '../../src/webhook-portal/webhook-portal-access.service';
import { axeViolations, launchBrowser, screenshotDir } from '../helpers/browser';
import { call, createTenant, type Tenant, type TestStack, startStack, teamManagementApi, type TeamManagementApi } from '../helpers/stack';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

const shots = screenshotDir('webhook-portal');

/**
 * The hosted webhook portal in Debian's Chromium: opened from `GET /v2/team/svix/url`, the
 * team's endpoints, a message with its payload and attempts, and the forms (resend, disable,
 * enable, recover) clicked as a developer would, and a session ended by revoking the team's
 * sessions — every page in the team's brand with no axe violation at all, at 1024 px and 360 px.
 * Screenshots in test-output/webhook-portal/.
 */
describe('webhook portal in Chromium', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  let api: TeamManagementApi;
  let endpointId: string;
  let failedId: string;
  let up = false;

  /** A portal URL of this stack (PUBLIC_API_URL is not the random port the test API listens on). */
  async function portalUrl(): Promise<string> {
    const response = await call(stack.apiUrl, 'GET', '/v2/team/svix/url', { key: tenant.apiKey });
    expect(response.status).toBe(200);
    return `${stack.apiUrl}${new URL(response.body.url).pathname}`;
  }

  async function checked(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    expect({ page: name, violations: await axeViolations(page) }).toEqual({ page: name, violations: [] });
  }

  beforeAll(async () => {
    stack = await startStack({
      worker: false,
      management: true,
      events: true,
      env: { WEBHOOK_RETRY_SCHEDULE: '50ms', WEBHOOK_DELIVERY_TIMEOUT: '5s', EVENTS_RELAY_POLL_INTERVAL: '200ms' },
    });
    tenant = await createTenant(stack.db, { teamName: 'Acme Health' });
    // A light brand colour on purpose: the portal darkens it until text on it is readable.
    await stack.db.query(`UPDATE teams SET brand_information = $2 WHERE id = $1`, [
      tenant.teamId,
      { company_name: 'Acme Health', primary_color: '#4fa3ff', support_email: 'dev@acme.example' },
    ]);
    receiver = await WebhookReceiver.start();
    receiver.respond('/hooks', (request) =>
      up || request.json?.data?.seq !== 'fails' ? { status: 200, body: '{"received":true}' } : { status: 503, body: 'Service Unavailable: deploy in progress' },
    );
    api = teamManagementApi(stack, tenant, 'sandbox');
    endpointId = (await api('POST', '/webhook', { url: receiver.url('/hooks'), description: 'Clinic app (orders and results)' })).body.id;
    await api('POST', '/webhook', {
      url: 'https://hooks.example.com/results',
      description: 'Results archive',
      disabled: true,
      filter_types: ['labtest.result.critical'],
    });
    const outbox = stack.api.get(OutboxService);
    const event = (seq: string) => ({
      eventType: 'labtest.order.created' as const,
      teamId: tenant.teamId,
      environment: 'sandbox' as const,
      userId: randomUUID(),
      clientUserId: `patient-${seq}`,
      data: { id: randomUUID(), status: 'ordered', seq },
    });
    await outbox.emit([event('ok-1'), event('ok-2')]);
    [failedId] = await outbox.emit([event('fails')]);
    await waitFor(async () => (await api('GET', `/webhook/${endpointId}/messages/${failedId}`)).body.status === 'exhausted', { timeoutMs: 30_000 });
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  it('opens from the URL onto the endpoints, then an endpoint and a failed message; resends, disables, enables and recovers', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(await portalUrl());
      expect(new URL(page.url()).pathname).toBe('/webhook-portal');
      await expect(page.locator('.brand').textContent()).resolves.toBe('Acme Health');
      await expect(page.locator('h1').textContent()).resolves.toBe('Webhook endpoints');
      await checked(page, 'endpoints');

      await page.getByRole('link', { name: receiver.url('/hooks') }).click();
      await page.waitForURL(`**/webhook-portal/endpoints/${endpointId}`);
      await expect(page.getByRole('cell', { name: /exhausted/ }).count()).resolves.toBe(1);
      await checked(page, 'endpoint');

      await page.locator(`a[href$="/messages/${failedId}"]`).click();
      await page.waitForURL(`**/messages/${failedId}`);
      await expect(page.getByText('HTTP 503').count()).resolves.toBe(2);
      await expect(page.getByText('Service Unavailable: deploy in progress').count()).resolves.toBe(2);
      await expect(page.locator('.payload').textContent()).resolves.toContain('"seq": "fails"');
      await checked(page, 'message-failed');

      // Resend while the receiver still fails: a manual attempt, shown after a reload.
      await page.getByRole('button', { name: 'Resend the message' }).click();
      await page.waitForURL('**?done=resent');
      await expect(page.getByRole('status').textContent()).resolves.toContain('being sent again');
      await waitFor(async () => {
        await page.reload();
        return (await page.getByText('(manual)').count()) === 1;
      });
      await checked(page, 'message-resent');

      await page.getByRole('link', { name: /^Back to / }).click();
      await page.getByRole('button', { name: 'Disable the endpoint' }).click();
      await page.waitForURL('**?done=disabled');
      expect((await api('GET', `/webhook/${endpointId}`)).body.disabled).toBe(true);
      await checked(page, 'endpoint-disabled');
      await page.getByRole('button', { name: 'Enable the endpoint' }).click();
      await page.waitForURL('**?done=enabled');
      expect((await api('GET', `/webhook/${endpointId}`)).body.disabled).toBe(false);

      // The receiver is back: recover everything since an hour ago.
      await waitFor(async () => (await api('GET', `/webhook/${endpointId}/messages/${failedId}`)).body.status === 'exhausted', { timeoutMs: 30_000 });
      up = true;
      await page.getByLabel('Since (UTC)').fill(new Date(Date.now() - 3600_000).toISOString().slice(0, 16));
      await page.getByRole('button', { name: 'Recover' }).click();
      await page.waitForURL('**?recovered=1');
      await expect(page.getByRole('status').textContent()).resolves.toBe('1 message is being sent again.');
      await checked(page, 'endpoint-recovered');
      await waitFor(async () => (await api('GET', `/webhook/${endpointId}/messages/${failedId}`)).body.status === 'succeeded', { timeoutMs: 30_000 });
    } finally {
      await browser.close();
    }
  });

  it('fits a 360 px phone without sideways scrolling, and its problem pages are accessible too', async () => {
    const browser = await launchBrowser({ width: 360, height: 740 });
    try {
      const page = await browser.context.newPage();
      await page.goto(await portalUrl());
      for (const [name, path] of [
        ['narrow-endpoints', '/webhook-portal'],
        ['narrow-message', `/webhook-portal/endpoints/${endpointId}/messages/${failedId}`],
      ]) {
        await page.goto(`${stack.apiUrl}${path}`);
        expect({ name, overflow: await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth') }).toEqual({ name, overflow: false });
        await checked(page, name);
      }
      const expired = webhookPortalTokens(stack.config).sign('launch', [tenant.teamId, 'sandbox', randomUUID(), Math.floor(Date.now() / 1000) - 1]);
      const response = await page.goto(`${stack.apiUrl}/webhook-portal/launch/${expired}`);
      expect(response?.status()).toBe(410);
      await checked(page, 'expired-link');
    } finally {
      await browser.close();
    }
  });

  it('ends an open session at its next click once the team revokes its sessions, and a revoked URL says so', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(await portalUrl());
      await expect(page.locator('h1').textContent()).resolves.toBe('Webhook endpoints');
      const unopened = await portalUrl();
      const revoked = await call(stack.apiUrl, 'DELETE', '/v2/team/svix/sessions', { key: tenant.apiKey });
      expect(revoked).toMatchObject({ status: 200, body: { success: true } });
      expect(revoked.body.revoked).toBeGreaterThanOrEqual(2);

      const next = page.waitForResponse((response) => response.url().endsWith(`/webhook-portal/endpoints/${endpointId}`));
      await page.getByRole('link', { name: receiver.url('/hooks') }).click();
      expect((await next).status()).toBe(401);
      await expect(page.locator('h1').textContent()).resolves.toBe('Your session has ended');
      await checked(page, 'session-revoked');

      const response = await page.goto(unopened);
      expect(response?.status()).toBe(410);
      await expect(page.locator('h1').textContent()).resolves.toBe('This link was revoked');
      await checked(page, 'revoked-link');
    } finally {
      await browser.close();
    }
  });
});
