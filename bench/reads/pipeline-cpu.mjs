// The API's CPU per request of one read, without sockets or a load generator (issue #42 item 2):
// the production API app (dist/, the settings of PRODUCTION_API_ENV given in the environment)
// built in this process, the route answered through Fastify's inject, BENCH_CONCURRENCY requests
// in flight, BENCH_REQUESTS of them after BENCH_WARMUP, timed by process.cpuUsage (user + system).
// On a machine that other processes keep busy a rate moves with them; the CPU this process spends
// per request moves much less, so a lever's before and after is read here, each in turn.
//
//   node --max-semi-space-size=32 --no-allocation-site-pretenuring bench/reads/pipeline-cpu.mjs user|order|users|orders  > /dev/null
//   (DATABASE_URL, PHI_ENCRYPTION_KEY, REDIS_URL, TEMPORAL_* as for the services; NODE_ENV=production
//   LOG_LEVEL=info LOG_REQUESTS=true METRICS_ENABLED=true; the figures go to stderr, the log lines to stdout)
//
// BENCH_FLOOR=1: bench:reads' floor (floor-app.mjs) is built in the same process too and answers
// the same route through its own inject, the two taking turns round by round, so that both see the
// same machine; the floor's CPU a request and ours ÷ it are printed beside ours.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { createHook } from 'node:async_hooks';
import process from 'node:process';
import console from 'node:console';
import { floorApp } from './floor-app.mjs';

const require = createRequire(import.meta.url);
require('reflect-metadata');
const { loadConfig } = require('../../dist/src/config/config.js');
const { createHttpApp } = require('../../dist/src/common/http-app.js');
const { ApiModule, API_DOCUMENT } = require('../../dist/src/app.module.js');
const { ApiKeysService } = require('../../dist/src/auth/api-keys.service.js');
const { OrgEntity, TeamEntity } = require('../../dist/src/tenancy/entities.js');
const { createDataSource } = require('../../dist/src/db/data-source.js');
const { LIVE_USER, LIVE_USERS_PAGE } = require('../../dist/src/users/user-read-model.js');
const { orderPageStatement, orderViewStatement } = require('../../dist/src/orders/order-read-model.js');

const route = process.argv[2] ?? 'user';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WITH_FLOOR = process.env.BENCH_FLOOR === '1';

const config = loadConfig(process.env);
const db = await createDataSource(config.databaseUrl, 2).initialize();
const org = await db.getRepository(OrgEntity).save({ id: randomUUID(), name: `bench pipeline ${randomUUID().slice(0, 8)}`, plan: 'scale' });
const team = await db
  .getRepository(TeamEntity)
  .save({ id: randomUUID(), orgId: org.id, name: 'bench', region: 'us', integrationTeamId: null, partialWebhooksEnabled: false });
const { value: key } = await new ApiKeysService(db).issueTeamKey(team, 'sandbox', 'bench');
const app = await createHttpApp(ApiModule.forRoot(config), config, API_DOCUMENT);
await app.init();
const fastify = app.getHttpAdapter().getInstance();
await fastify.ready();
const headers = { 'x-service-api-key': key, 'content-type': 'application/json' };
const post = async (url, body) => {
  const response = await fastify.inject({ method: 'POST', url, headers, payload: JSON.stringify(body) });
  if (response.statusCode >= 300) throw new Error(`POST ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
};
let floor = null;
try {
  const users = [];
  for (let i = 0; i < 50; i += 1) users.push((await post('/v2/user', { client_user_id: `bench-${randomUUID()}` })).user_id);
  const orders = [];
  if (route === 'order' || route === 'orders')
    for (const userId of users.slice(0, route === 'order' ? 1 : 50))
      orders.push(
        (
          await post('/v3/order', {
            user_id: userId,
            lab_test_id: '1ab7e570-0000-4000-8000-000000000001',
            patient_details: {
              first_name: 'Bench',
              last_name: 'Reader',
              dob: '1980-01-01',
              gender: 'female',
              phone_number: '+14155550100',
              email: 'bench@example.com',
            },
            patient_address: { receiver_name: 'Bench Reader', first_line: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' },
          })
        ).order.id,
      );
  const url = { user: `/v2/user/${users[0]}`, order: `/v3/order/${orders[0]}`, users: '/v2/user?limit=50', orders: '/v3/orders?size=50' }[route];
  const scope = { teamId: team.id, environment: 'sandbox' };
  const ordersPage = orderPageStatement(db, scope, { orderBy: 'created_at', direction: 'DESC' }, { offset: 0, limit: 50 });
  floor = WITH_FLOOR
    ? floorApp({
        config,
        teamId: scope.teamId,
        environment: scope.environment,
        statements: { user: LIVE_USER, order: orderViewStatement(db), users: LIVE_USERS_PAGE, orders: { name: ordersPage.name, text: ordersPage.text } },
      })
    : null;
  const run = async (count, server = fastify) => {
    let next = 0;
    const lane = async () => {
      while (next < count) {
        next += 1;
        const response = await server.inject({ method: 'GET', url, headers });
        if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${response.body}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  };
  await run(WARMUP);
  if (floor) await run(WARMUP, floor.app);
  if (process.env.BENCH_COUNT_ASYNC) {
    // How many async resources (promises above all) a request makes: each pays AsyncLocalStorage's hooks.
    const counts = new Map();
    const stacks = new Map();
    const hook = createHook({
      init: (_id, type) => {
        counts.set(type, (counts.get(type) ?? 0) + 1);
        if (process.env.BENCH_COUNT_ASYNC === 'promises' && type === 'PROMISE') {
          // Where each promise is made: the first two frames outside node's internals.
          const frames = new Error().stack
            .split('\n')
            .slice(2)
            .filter((line) => !line.includes('node:internal') && !line.includes('(<anonymous>)'));
          const at = frames
            .slice(0, 2)
            .map((line) =>
              line
                .trim()
                .replace(/^at /, '')
                .replace(/\/work\/wt\/h42\/|\/tmp\/h42\/base\//g, ''),
            )
            .join(' < ');
          stacks.set(at, (stacks.get(at) ?? 0) + 1);
        }
        if (process.env.BENCH_COUNT_ASYNC === 'stacks' && (type === 'Timeout' || type === 'Immediate') && stacks.size < 12) {
          const stack = new Error().stack.split('\n').slice(2, 9).join('\n');
          stacks.set(stack, type);
        }
      },
    }).enable();
    await run(1000);
    hook.disable();
    if (floor && process.env.BENCH_COUNT_ASYNC === '1') {
      // The floor's, for comparison (a count does not move with the machine's load).
      const ours = [...counts];
      counts.clear();
      hook.enable();
      await run(1000, floor.app);
      hook.disable();
      console.error(
        `the floor's async resources per request (inject's own included): ${[...counts].map(([type, n]) => `${type} ${(n / 1000).toFixed(1)}`).join(', ')}`,
      );
      counts.clear();
      for (const [type, n] of ours) counts.set(type, n);
    }
    if (process.env.BENCH_COUNT_ASYNC === 'promises')
      for (const [at, n] of [...stacks].sort((a, b) => b[1] - a[1])) console.error(`${(n / 1000).toFixed(1).padStart(5)}  ${at}`);
    else for (const [stack, type] of stacks) console.error(`${type}:\n${stack}`);
    console.error(`async resources per request (inject's own included): ${[...counts].map(([type, n]) => `${type} ${(n / 1000).toFixed(1)}`).join(', ')}`);
  }
  /** CPU µs a request (user + system, and system alone) over one round of `server`. */
  const round = async (server) => {
    const before = process.cpuUsage();
    await run(REQUESTS, server);
    const spent = process.cpuUsage(before);
    return { total: (spent.user + spent.system) / REQUESTS, system: spent.system / REQUESTS };
  };
  const figures = [];
  const floorFigures = [];
  for (let index = 0; index < ROUNDS; index += 1) {
    figures.push(await round(fastify));
    if (floor) floorFigures.push(await round(floor.app));
  }
  const show = (list) => list.map((f) => `${f.total.toFixed(1)} (system ${f.system.toFixed(1)})`).join(', ');
  console.error(`${route} ${url}: CPU µs per request ${show(figures)} (${REQUESTS} requests a round, ${CONCURRENCY} in flight)`);
  if (floor) {
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const ratios = figures.map((f, index) => f.total / floorFigures[index].total);
    console.error(
      `${route} floor, in turns: CPU µs per request ${show(floorFigures)}; ours ÷ floor ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
    );
  }
} finally {
  await floor?.close();
  await app.close();
  await db.getRepository(OrgEntity).delete({ id: org.id });
  await db.destroy();
}
