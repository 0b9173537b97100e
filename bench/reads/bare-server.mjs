// The floor the reads bench measures labflow against: bare Fastify and pg, the same single-row
// (or one-page) SELECT each labflow route's main read does, no auth, no framework, no shaping
// beyond returning the row. Plain JavaScript run by node, as labflow's API runs from dist/ (no
// ts-node in either: its REPL support loads node:domain, whose async hooks tax every promise).
// Run by bench/reads/run.ts in a process of its own.
//
//   BARE_PORT, DATABASE_URL, BENCH_TEAM_ID (the team whose list the list route reads)
import { createRequire } from 'node:module';
import process from 'node:process';

// fastify is labflow's through @nestjs/platform-fastify; pg is a direct dependency.
const require = createRequire(import.meta.url);
const Fastify = require(require.resolve('fastify', { paths: [require.resolve('@nestjs/platform-fastify')] }));
const { Pool } = require('pg');

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const teamId = process.env.BENCH_TEAM_ID;
const app = Fastify({ logger: false });

app.get('/health/ready', async () => ({ status: 'ok' }));
app.get('/v2/user/:id', async (request, reply) => {
  const { rows } = await pool.query({ name: 'user', text: 'SELECT * FROM users WHERE id = $1 AND deletion_requested_at IS NULL', values: [request.params.id] });
  return rows[0] ?? reply.code(404).send({ detail: 'User not found.' });
});
app.get('/v3/order/:id', async (request, reply) => {
  const { rows } = await pool.query({ name: 'order', text: 'SELECT * FROM orders WHERE id = $1', values: [request.params.id] });
  return rows[0] ?? reply.code(404).send({ detail: 'Order not found.' });
});
app.get('/v2/user', async () => {
  const { rows } = await pool.query({
    name: 'users',
    text: 'SELECT * FROM users WHERE team_id = $1 AND deletion_requested_at IS NULL ORDER BY created_on, id LIMIT 50',
    values: [teamId],
  });
  return { users: rows, total: rows.length };
});

await app.listen({ port: Number(process.env.BARE_PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end()));
