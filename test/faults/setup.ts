/**
 * The fault run's setting up, before t = 0: the processes up, the team with its webhook endpoint,
 * the Link Migration users, the orders, and the workflows lost on purpose and healed.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { WebhookReceiver } from '../helpers/webhook-receiver';
import { HL7_LISTENING, SANDBOX_HL7_LAB_LISTENING } from './hl7-faults';
import { http, pool, type Reply, waitHealthy } from './http';
import { check, log } from './log';
import { allProcesses, apiFor, apiProcesses, hl7ListenerProcess, sandboxHl7LabProcess, sleepUnlessAborted, stopping, workerProcesses } from './processes';
import {
  API,
  APIS,
  HL7,
  HL7_LISTENER_PORT,
  LOG_DIR,
  LOST_WORKFLOWS,
  MANAGEMENT,
  METHODS,
  MIGRATED_USERS,
  PER_METHOD,
  REPLICAS,
  SANDBOX_HL7_LAB_PORT,
  WEBHOOK_PATH,
  WORKER_POLLING,
} from './settings';
import { createTenant, orderBody, requireCreated, type RunOrder, type Tenant } from './team';

/** A management API call on the team's own path. */
export type TeamApi = (method: string, path: string, body?: unknown) => Promise<Reply>;

/** Starts every process and waits until each serves: the run starts with every worker polling. */
export async function startProcesses(): Promise<void> {
  for (const proc of allProcesses) proc.start();
  await Promise.all([...APIS.map((api, index) => waitHealthy(api, `API ${apiProcesses[index].name}`)), waitHealthy(MANAGEMENT, 'the management API')]);
  log(`API (${REPLICAS}) and management API are up`);
  // A worker bundles the workflow code before it polls: the run starts with every one polling.
  for (const worker of workerProcesses) {
    if (!(await worker.waitForLog(WORKER_POLLING, 180_000)))
      throw new Error(`${worker.name} did not start polling within 180 s (log ${LOG_DIR}/${worker.name}.log)`);
  }
  log(`worker(s) polling: ${workerProcesses.map((worker) => worker.name).join(', ')}`);
  if (HL7) {
    if (!(await hl7ListenerProcess.waitForLog(HL7_LISTENING, 120_000)))
      throw new Error(`the HL7 listener did not listen within 120 s (log ${LOG_DIR}/hl7-listener.log)`);
    if (!(await sandboxHl7LabProcess.waitForLog(SANDBOX_HL7_LAB_LISTENING, 120_000)))
      throw new Error(`the sandbox HL7 lab did not listen within 120 s (log ${LOG_DIR}/sandbox-hl7-lab.log)`);
    log(`HL7 listener :${HL7_LISTENER_PORT} and sandbox HL7 lab :${SANDBOX_HL7_LAB_PORT} up`);
  }
}

/** The team, its partial-results webhooks on and a webhook endpoint pointing at the receiver. */
export async function setUpTeam(db: DataSource, receiver: WebhookReceiver): Promise<{ tenant: Tenant; teamApi: TeamApi }> {
  const tenant = await createTenant(db);
  const teamApi = (method: string, path: string, body?: unknown) =>
    http(MANAGEMENT, method, `/v1/org/${tenant.orgId}/team/${tenant.teamId}${path}`, { managementKey: tenant.managementKey, body });
  const partial = await teamApi('PATCH', '', { partial_webhooks_enabled: true });
  const endpoint = await teamApi('POST', '/sandbox/webhook', { url: receiver.url(WEBHOOK_PATH) });
  const secret = endpoint.status === 200 ? await teamApi('GET', `/sandbox/webhook/${endpoint.body.id}/secret`) : null;
  if (secret?.body?.key) receiver.secret(WEBHOOK_PATH, secret.body.key as string);
  console.log('setup');
  check('team partial-results webhooks enabled through the management API', partial.status === 200, `${partial.status} ${JSON.stringify(partial.body)}`);
  if (
    !check(
      'webhook endpoint registered through the management API',
      endpoint.status === 200 && Boolean(secret?.body?.key),
      `${endpoint.status} ${JSON.stringify(endpoint.body)}`,
    )
  ) {
    throw new Error('no webhook endpoint');
  }
  return { tenant, teamApi };
}

/**
 * Link Migration: Oura connections imported as a team moving from another system would (the
 * sandbox's Oura; its tokens are the other system's), before the faults; their history is pulled
 * again under the faults (t = 0), paced (LINK_BULK_PULL_BATCH, LINK_BULK_PULL_INTERVAL).
 */
export async function importMigratedUsers(tenant: Tenant, teamApi: TeamApi): Promise<string[]> {
  const migration = await teamApi('PATCH', '', { link_migration_enabled: true });
  check(
    'team Link Migration enabled through the management API',
    migration.status === 200 && migration.body.link_migration_enabled === true,
    `${migration.status} ${JSON.stringify(migration.body)}`,
  );
  const migrated: string[] = await pool(
    Array.from({ length: MIGRATED_USERS }, (_, index) => index),
    5,
    async (index) => {
      const user = await http(apiFor(index), 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `faults-migrated-${randomUUID()}` } });
      return user.body.user_id as string;
    },
  );
  const recipes = migrated.map((userId) => ({
    user_id: userId,
    access_token: `other-system-access-${userId}`,
    refresh_token: `other-system-refresh-${userId}`,
    provider_id: `oura-${userId.slice(0, 8)}`,
    expires_at: Math.floor(Date.now() / 1000) + 86_400,
  }));
  // The API waits LINK_BULK_WAIT (20 s) for the import, then answers 202 and carries on; on a
  // loaded machine it can take longer, so the same request (one idempotency key: the same
  // operation) is asked again until the operation answers 200, bounded.
  const importKey = randomUUID();
  const importBounded = Date.now() + 180_000;
  let imported: Reply;
  do {
    imported = await http(API, 'POST', '/v2/link/bulk_import', {
      key: tenant.apiKey,
      headers: { 'x-idempotency-key': importKey },
      body: { provider: 'oura', connections: recipes, wait_for_completion: true },
    });
  } while (imported.status === 202 && Date.now() < importBounded && !stopping.now);
  check(
    `${MIGRATED_USERS} Oura connections imported through POST /v2/link/bulk_import (200, none failed)`,
    imported.status === 200 && imported.body.user_ids_imported?.length === MIGRATED_USERS && imported.body.user_ids_failed?.length === 0,
    `${imported.status} ${JSON.stringify(imported.body).slice(0, 300)}`,
  );

  return migrated;
}

/** PER_METHOD users and orders per collection method, 10 requests in flight. */
export async function createOrders(tenant: Tenant): Promise<RunOrder[]> {
  const plan = METHODS.flatMap((method) => Array.from({ length: PER_METHOD }, () => method));
  const orders: RunOrder[] = await pool(plan, 10, async (method, index) => {
    const API = apiFor(index);
    try {
      const user = await http(API, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `faults-${randomUUID()}` } });
      if (user.status !== 200) throw new Error(`POST /v2/user: ${user.status} ${JSON.stringify(user.body)}`);
      const created = await http(API, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(method, user.body.user_id as string) });
      if (created.status !== 200) throw new Error(`POST /v3/order: ${created.status} ${JSON.stringify(created.body)}`);
      return { id: created.body.order.id as string, method, view: created.body.order, error: null };
    } catch (error) {
      return { id: '', method, view: null, error: String(error) };
    }
  });
  requireCreated(orders, 'orders');
  const wrongMethod = orders.filter((order) => order.view?.details?.type !== order.method);
  check(
    'each order has the collection method asked for',
    wrongMethod.length === 0,
    wrongMethod.map((order) => `${order.id}: ${order.view?.details?.type}`).join(', '),
  );
  return orders;
}

/**
 * Lost workflows: terminated as a bug or an operator would; every worker's reconciler sees them
 * closed, one of them heals each (a new run resuming from the order's row), once.
 */
export async function loseWorkflows(client: Client, orders: RunOrder[]): Promise<RunOrder[]> {
  const lost = orders.filter((order) => order.method === 'testkit').slice(0, LOST_WORKFLOWS);
  const firstRuns = new Map<string, string>();
  for (const order of lost) {
    const handle = client.workflow.getHandle(`order:${order.id}`);
    firstRuns.set(order.id, (await handle.describe()).runId);
    await handle.terminate('fault run: workflow lost');
  }
  log(`terminated the workflows of ${lost.length} order(s); waiting for a reconciler to heal them`);
  const unhealed = new Set(lost.map((order) => order.id));
  const healDeadline = Date.now() + 90_000;
  while (unhealed.size > 0 && Date.now() < healDeadline && !stopping.now) {
    for (const orderId of [...unhealed]) {
      const description = await client.workflow
        .getHandle(`order:${orderId}`)
        .describe()
        .catch(() => null);
      if (description && description.runId !== firstRuns.get(orderId) && description.status.name === 'RUNNING') unhealed.delete(orderId);
    }
    if (unhealed.size > 0) await sleepUnlessAborted(500);
  }
  check(`every lost workflow healed by a reconciler (${lost.length} terminated)`, unhealed.size === 0, `not healed within 90 s: ${[...unhealed].join(', ')}`);
  return lost;
}
