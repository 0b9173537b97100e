// The floor the reads bench measures labflow against: bare Fastify and pg doing the same read as
// each labflow route — the very statement the route runs (BENCH_STATEMENTS, from run.ts), with the
// same parameters — and no auth, no framework, no shaping beyond returning the rows as pg gives
// them. Plain JavaScript run by node, as labflow's API runs from dist/ (no ts-node in either: its
// REPL support loads node:domain, whose async hooks tax every promise). Run by bench/reads/run.ts
// in a process of its own.
//
//   BARE_PORT, DATABASE_URL, BENCH_TEAM_ID and BENCH_ENVIRONMENT (the team's whose rows the routes
//   read), BENCH_STATEMENTS ({user, order, users, orders}: each {name, text})
import { createRequire } from 'node:module';
import process from 'node:process';

// fastify is labflow's through @nestjs/platform-fastify; pg is a direct dependency.
const require = createRequire(import.meta.url);
const Fastify = require(require.resolve('fastify', { paths: [require.resolve('@nestjs/platform-fastify')] }));
const { Pool } = require('pg');

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const teamId = process.env.BENCH_TEAM_ID;
const environment = process.env.BENCH_ENVIRONMENT;
const statements = JSON.parse(process.env.BENCH_STATEMENTS);
const app = Fastify({ logger: false });

/** Runs one of labflow's statements as the route's named statement. */
const read = async (key, values) => (await pool.query({ ...statements[key], values })).rows;

app.get('/health/ready', async () => ({ status: 'ok' }));
app.get('/v2/user/:id', async (request, reply) => {
  const [user] = await read('user', [request.params.id, teamId, environment]);
  return user ?? reply.code(404).send({ detail: 'User not found.' });
});
app.get('/v3/order/:id', async (request, reply) => {
  const [order] = await read('order', [request.params.id, teamId, environment]);
  return order ?? reply.code(404).send({ detail: 'Order not found.' });
});
app.get('/v2/user', async () => {
  const users = await read('users', [teamId, environment, 0, 50]);
  return { users, total: users.length };
});
app.get('/v3/orders', async () => {
  const orders = await read('orders', [teamId, environment, 0, 50]);
  return { orders, total: orders[0]?.read_total ?? 0, page: 1, size: 50 };
});

await app.listen({ port: Number(process.env.BARE_PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end()));
