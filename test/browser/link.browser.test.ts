import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, screenshotDir, seriousViolations } from '../helpers/browser';
import { call, createTenant, type Tenant, type TestStack, startStack } from '../helpers/stack';

const shots = screenshotDir('link');

/**
 * The hosted Link page in Chromium with its Content-Security-Policy enforced: a user connects
 * Oura through the sandbox consent page and Dexcom with a password and an SMS code, and each
 * time the browser ends on the team's redirect_url (another origin) with state=success.
 */
describe('hosted Link page in Chromium', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let app: Server;
  let appUrl: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    stack = await startStack({ env: { CONNECTION_BACKFILL_DAYS: '1', CONNECTION_BACKFILL_CHUNK: '1d', CONNECTION_SYNC_INTERVAL: '1h' } });
    tenant = await createTenant(stack.db, { teamName: 'Acme Health' });
    // The team's app, on another origin (localhost, where labflow is 127.0.0.1).
    app = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Back in the app</h1>'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://localhost:${(app.address() as AddressInfo).port}/linked`;
    browser = await launchBrowser({ bypassCSP: false });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await new Promise((resolve) => app?.close(resolve));
  });

  async function linkPage(body: Record<string, unknown>, on = browser): Promise<Page> {
    const user = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `link-${Date.now()}-${Math.random()}` } });
    const token = await call(stack.apiUrl, 'POST', '/v2/link/token', {
      key: tenant.apiKey,
      body: { user_id: user.body.user_id, redirect_url: appUrl, ...body },
    });
    expect(token.status).toBe(200);
    const page = await on.context.newPage();
    // labflow's public URL names port 0 in the test stack: send those requests to the port it listens on.
    const publicOrigin = new URL(token.body.link_web_url).origin;
    await page.route(`${publicOrigin}/**`, (route) => route.continue({ url: route.request().url().replace(publicOrigin, stack.apiUrl) }));
    await page.goto(token.body.link_web_url.replace(publicOrigin, stack.apiUrl));
    return page;
  }

  it('connects Oura through the consent page and returns to the app', async () => {
    const page = await linkPage({ filter_on_providers: ['oura', 'dexcom'] });
    await page.screenshot({ path: join(shots, 'providers.png'), fullPage: true });
    await page.getByRole('link', { name: 'Connect Oura' }).click();
    await page.getByRole('heading', { name: 'Sandbox Oura: allow access?' }).waitFor();
    await page.screenshot({ path: join(shots, 'consent.png'), fullPage: true });
    await page.getByRole('link', { name: 'Allow', exact: true }).click();
    await page.getByRole('heading', { name: 'Back in the app' }).waitFor();
    const back = new URL(page.url());
    expect(back.origin + back.pathname).toBe(appUrl);
    expect(Object.fromEntries(back.searchParams)).toEqual({ state: 'success', provider: 'oura' });
    await page.close();
  });

  it('connects Dexcom with a password and an SMS code, after a wrong password', async () => {
    const page = await linkPage({ provider: 'dexcom' });
    await page.getByLabel('Username or e-mail').fill('ana@example.com');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Connect Dexcom' }).click();
    await page.getByRole('alert').filter({ hasText: 'The username or password is not correct.' }).waitFor();
    await page.screenshot({ path: join(shots, 'wrong-password.png'), fullPage: true });

    await page.getByLabel('Username or e-mail').fill('mfa-ana@example.com');
    await page.getByLabel('Password').fill('secret');
    await page.getByRole('button', { name: 'Connect Dexcom' }).click();
    await page.getByText('Dexcom sent a code by sms to •••-•••-0123.').waitFor();
    await page.screenshot({ path: join(shots, 'code.png'), fullPage: true });
    await page.getByLabel('Code', { exact: true }).fill('123456');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByRole('heading', { name: 'Back in the app' }).waitFor();
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ state: 'success', provider: 'dexcom' });
    await page.close();
  });

  it('has no serious accessibility violations: providers, code and consent pages', async () => {
    // axe-core is injected as a script, which the pages' policy forbids: a second browser that bypasses it.
    const checking = await launchBrowser();
    try {
      const page = await linkPage({ filter_on_providers: ['oura', 'dexcom', 'freestyle_libre'] }, checking);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel('Username or e-mail').fill('mfa-ana');
      await page.getByLabel('Password').fill('secret');
      await page.getByRole('button', { name: 'Connect Dexcom' }).click();
      await page.getByLabel('Code', { exact: true }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      const consent = await linkPage({ provider: 'oura' }, checking);
      await consent.getByRole('link', { name: 'Connect Oura' }).click();
      await consent.getByRole('heading', { name: 'Sandbox Oura: allow access?' }).waitFor();
      expect(await seriousViolations(consent)).toEqual([]);
    } finally {
      await checking.close();
    }
  });
});
