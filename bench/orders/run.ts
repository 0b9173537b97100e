/**
 * Order benchmark, every figure against a baseline measured in the same run on the same
 * machine, so the ratios are comparable across machines:
 *
 *   1. orders/s through `POST /v3/order` ÷ raw Temporal workflow starts/s on the same dev
 *      server (what creating an order costs beyond starting its workflow: validation, catalog,
 *      PHI encryption, one Postgres transaction with events and outbox);
 *   2. `GET /v3/order/{id}` req/s ÷ a bare Fastify + pg route reading the same order row
 *      (what the API adds: auth, team scoping, events, decryption, the Junction shape),
 *   with p99 latencies of each.
 *
 *   npm run bench:orders   (settings from the environment as for the services: DATABASE_URL of
 *                           a migrated database, PHI_ENCRYPTION_KEY, TEMPORAL_ADDRESS,
 *                           TEMPORAL_NAMESPACE; BENCH_ORDERS, BENCH_CONNECTIONS, BENCH_SECONDS)
 *
 * No worker runs: started workflows wait on a task queue of their own and are terminated at
 * the end, with the bench's org (and so its users and orders) deleted.
 */
import 'reflect-metadata';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { API_DOCUMENT, ApiModule } from '../../src/app.module';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { createHttpApp } from '../../src/common/http-app';
import { loadConfig } from '../../src/config/config';
import { TEMPORAL_CLIENT } from '../../src/core.module';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import type { Client } from '@temporalio/client';
import { DataSource } from 'typeorm';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 400);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const LIPID_PANEL_KIT = '1ab7e570-0000-4000-8000-000000000001';

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

interface Load {
  perSecond: number;
  p99: number;
  non2xx: number;
}

/** `amount` requests (or `duration` seconds) with `connections` in flight, via autocannon. */
async function load(options: autocannon.Options): Promise<Load> {
  const result = await autocannon({ connections: CONNECTIONS, ...options });
  const seconds = result.duration;
  return { perSecond: result.requests.total / seconds, p99: result.latency.p99, non2xx: result.non2xx };
}

/** Raw workflow starts with the same concurrency, through the API's own Temporal client. */
async function rawStarts(client: Client, taskQueue: string, count: number): Promise<{ perSecond: number; p99: number; ids: string[] }> {
  const ids: string[] = [];
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        next += 1;
        const workflowId = `bench-raw:${randomUUID()}`;
        const t0 = performance.now();
        await client.workflow.start('benchNoop', { workflowId, taskQueue, args: [] });
        latencies.push(performance.now() - t0);
        ids.push(workflowId);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: count / seconds, p99: latencies[Math.ceil(0.99 * latencies.length) - 1], ids };
}

async function main(): Promise<void> {
  const taskQueue = `bench-orders-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({ ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, LOG_REQUESTS: 'false', RECONCILER_INTERVAL: '1h' });
  const app = await createHttpApp(ApiModule.forRoot(config), config, API_DOCUMENT);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  if (!address || typeof address === 'string') throw new Error('API is not listening');
  const apiUrl = `http://127.0.0.1:${address.port}`;
  const db = app.get(DataSource);
  const temporal = app.get<Client>(TEMPORAL_CLIENT);
  const bare = Fastify();
  const pool = new Pool({ connectionString: config.databaseUrl, max: 20 });

  const org = await db.getRepository(OrgEntity).save({ id: randomUUID(), name: `bench ${taskQueue}`, plan: 'scale' });
  const workflowIds: string[] = [];
  try {
    const team = await db.getRepository(TeamEntity).save({
      id: randomUUID(), orgId: org.id, name: 'bench', region: 'us', integrationTeamId: null, partialWebhooksEnabled: false,
    });
    const { value: key } = await new ApiKeysService(db).issueTeamKey(team, 'sandbox', 'bench');
    const headers = { 'x-service-api-key': key, 'content-type': 'application/json' };
    const user = (await (await fetch(`${apiUrl}/v2/user`, { method: 'POST', headers, body: JSON.stringify({ client_user_id: `bench-${taskQueue}` }) })).json()) as { user_id: string };
    const body = JSON.stringify({
      user_id: user.user_id,
      lab_test_id: LIPID_PANEL_KIT,
      patient_details: { first_name: 'Bench', last_name: 'Mark', dob: '1980-01-01', gender: 'female', phone_number: '+14155550123', email: 'bench@example.com' },
      patient_address: { receiver_name: 'Bench Mark', first_line: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US', phone_number: '+14155550123' },
    });
    // Warm both paths (JIT, pools, connections) before measuring.
    await load({ url: `${apiUrl}/v3/order`, method: 'POST', headers, body, amount: 40 });
    const warmIds = await rawStarts(temporal, taskQueue, 40);
    workflowIds.push(...warmIds.ids);

    const raw = await rawStarts(temporal, taskQueue, ORDERS);
    workflowIds.push(...raw.ids);
    const created = await load({ url: `${apiUrl}/v3/order`, method: 'POST', headers, body, amount: ORDERS });
    if (created.non2xx > 0) throw new Error(`${created.non2xx} order creations failed`);

    const [{ id: orderId }] = await db.query('SELECT id FROM orders WHERE team_id = $1 LIMIT 1', [team.id]);
    bare.get('/order/:id', async (request) => {
      const { rows } = await pool.query('SELECT * FROM orders WHERE id = $1', [(request.params as { id: string }).id]);
      return rows[0];
    });
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const bareAddress = bare.server.address();
    if (!bareAddress || typeof bareAddress === 'string') throw new Error('bare server is not listening');
    await load({ url: `http://127.0.0.1:${bareAddress.port}/order/${orderId}`, duration: 1 });
    await load({ url: `${apiUrl}/v3/order/${orderId}`, headers, duration: 1 });
    const bareReads = await load({ url: `http://127.0.0.1:${bareAddress.port}/order/${orderId}`, duration: SECONDS });
    const apiReads = await load({ url: `${apiUrl}/v3/order/${orderId}`, headers, duration: SECONDS });
    if (apiReads.non2xx > 0) throw new Error(`${apiReads.non2xx} order reads failed`);

    const orders = await db.query('SELECT id FROM orders WHERE team_id = $1', [team.id]);
    workflowIds.push(...orders.map((row: { id: string }) => `order:${row.id}`));

    console.log(`bench/orders — ${ORDERS} creations, ${CONNECTIONS} connections, ${SECONDS} s of reads`);
    console.log(`  raw workflow starts      ${fmt(raw.perSecond, 1)}/s   p99 ${fmt(raw.p99, 1)} ms`);
    console.log(`  POST /v3/order           ${fmt(created.perSecond, 1)}/s   p99 ${fmt(created.p99, 1)} ms`);
    console.log(`  ratio orders ÷ starts    ${fmt(created.perSecond / raw.perSecond, 2)}`);
    console.log(`  bare Fastify + pg read   ${fmt(bareReads.perSecond, 0)} req/s   p99 ${fmt(bareReads.p99, 1)} ms`);
    console.log(`  GET /v3/order/{id}       ${fmt(apiReads.perSecond, 0)} req/s   p99 ${fmt(apiReads.p99, 1)} ms`);
    console.log(`  ratio API ÷ bare read    ${fmt(apiReads.perSecond / bareReads.perSecond, 2)}`);
  } finally {
    for (const id of workflowIds) await temporal.workflow.getHandle(id).terminate('bench finished').catch(() => undefined);
    await db.getRepository(OrgEntity).delete({ id: org.id });
    await bare.close();
    await pool.end();
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
