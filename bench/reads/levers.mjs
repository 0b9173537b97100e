// What single pieces of the API's per-request work cost, each alone, outside Nest (issue #42 item
// 2): each piece run in a tight loop on the very objects a request has (a Fastify request and
// reply from an inject, labflow's logger, metrics, hashing), µs per call as the best of
// BENCH_ROUNDS rounds of process CPU (process.cpuUsage), which a loaded machine inflates least.
//
//   node bench/reads/levers.mjs > /dev/null     (figures on stderr; the log lines go to stdout)
import { createRequire } from 'node:module';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import process from 'node:process';
import console from 'node:console';

const require = createRequire(import.meta.url);
require('reflect-metadata');
const Fastify = require(require.resolve('fastify', { paths: [require.resolve('@nestjs/platform-fastify')] }));
const { Counter, Histogram, Registry } = require('prom-client');
const { Reflector } = require('@nestjs/core');
const { SetMetadata } = require('@nestjs/common');
const { createLogger, requestLineWriter } = require('../../dist/src/common/logger.js');
const { hashSecretHex } = require('../../dist/src/common/crypto.js');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 200_000);

/** µs per call of fn (sync), best of the rounds. */
function perCall(fn, calls = CALLS) {
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round += 1) {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i += 1) fn(i);
    const spent = process.cpuUsage(before);
    best = Math.min(best, (spent.user + spent.system) / calls);
  }
  return best;
}

/** µs per call of an async fn, awaited one after another, best of the rounds. */
async function perAsyncCall(fn, calls = CALLS / 10) {
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round += 1) {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i += 1) await fn(i);
    const spent = process.cpuUsage(before);
    best = Math.min(best, (spent.user + spent.system) / calls);
  }
  return best;
}

const show = (name, micros) => console.error(`${name.padEnd(78)} ${micros.toFixed(3).padStart(8)} µs`);

// A request as the API sees it: labflow's logger (JSON to stdout), a route with a parameter.
const logger = createLogger({ logLevel: 'info', logFormat: 'json' }, { service: 'api' });
const fastify = Fastify({ loggerInstance: logger, logController: undefined, genReqId: () => randomUUID() });
let captured;
fastify.get('/v2/user/:user_id', { config: {} }, async (request, reply) => {
  captured = { request, reply };
  return { ok: true };
});
await fastify.ready();
const key = `sk_us_${randomUUID().replaceAll('-', '')}`;
await fastify.inject({ method: 'GET', url: `/v2/user/${randomUUID()}`, headers: { 'x-service-api-key': key } });
const { request, reply } = captured;

// The multipart hook: its checks as main has them (routeOptions twice, then the content type) and content type first.
const MULTIPART = /^multipart\/form-data\b/i;
show(
  'request.routeOptions (Fastify builds the object on each read)',
  perCall(() => request.routeOptions.url),
);
show(
  'multipart hook checks, routeOptions first (main)',
  perCall(() => request.routeOptions.url === undefined || request.routeOptions.config.multipart || !MULTIPART.test(request.headers['content-type'] ?? '')),
);
show(
  'multipart hook checks, content type first',
  perCall(() => request.headers['content-type'] === undefined || !MULTIPART.test(request.headers['content-type'])),
);
show('an async hook awaited (the multipart hook is async) vs none: async fn + await', await perAsyncCall(async () => undefined));

// The request's child logger (Fastify makes one per request) and the request line.
show(
  'pino child logger ({reqId})',
  perCall((i) => logger.child({ reqId: i })),
);
const writeLine = requestLineWriter(logger);
show(
  'the request line (requestLineWriter, written to stdout)',
  perCall(() => writeLine({ requestId: request.id, req: request, statusCode: 200, responseTime: 1.25 }), CALLS / 4),
);

// Metrics: the onResponse hook's counter and histogram with their labels.
const registry = new Registry();
const requests = new Counter({ name: 'r', help: 'r', labelNames: ['method', 'route', 'status_code'], registers: [registry] });
const duration = new Histogram({
  name: 'd',
  help: 'd',
  labelNames: ['method', 'route'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});
show(
  'metrics: routeOptions.url, inc + observe with labels',
  perCall(() => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: 'GET', route, status_code: String(reply.statusCode) });
    duration.observe({ method: 'GET', route }, 0.0012);
  }),
);

// The key: SHA-256 hex, computed by the rate-limit guard and again by the key cache.
show(
  'hashSecretHex(key) (SHA-256 hex of the API key)',
  perCall(() => hashSecretHex(key)),
);

// Route metadata: what the guards read per request (isPublic, the rate-limit family).
class Controller {
  get() {}
}
SetMetadata('isPublic', false)(Controller.prototype, 'get', Object.getOwnPropertyDescriptor(Controller.prototype, 'get'));
const reflector = new Reflector();
show(
  'reflector.getAllAndOverride([handler, class]) (one metadata key)',
  perCall(() => reflector.getAllAndOverride('isPublic', [Controller.prototype.get, Controller])),
);
const cache = new WeakMap();
show(
  'the same from a WeakMap per handler',
  perCall(() => {
    let hit = cache.get(Controller.prototype.get);
    if (hit === undefined)
      cache.set(Controller.prototype.get, (hit = reflector.getAllAndOverride('isPublic', [Controller.prototype.get, Controller]) === true));
    return hit;
  }),
);

// AsyncLocalStorage: in node 20 its promise hooks tax every promise of the process once it is used.
const chain = async (n) => {
  for (let i = 0; i < n; i += 1) await null;
};
const withoutAls = await perAsyncCall(() => chain(50));
const storage = new AsyncLocalStorage();
const withAls = await perAsyncCall(() => storage.run({ requestId: 'x' }, () => chain(50)));
show('50 awaits, no AsyncLocalStorage in the process', withoutAls);
show('50 awaits inside storage.run (promise hooks on)', withAls);
// The two global guards as Nest's GuardsConsumer runs them (each result awaited): async functions
// awaiting the limiter and the key cache (main) against plain returns from the lease and the cache.
const verdict = { kind: 'admitted', state: { limit: 1, remaining: 1, resetMs: 1 } };
const principal = { teamId: 't' };
const pickResult = async (result) => result;
const tryActivate = async (guards) => {
  for (const guard of guards) if (!(await pickResult(guard()))) return false;
  return true;
};
const admitAsync = async () => verdict;
const cacheAsync = async () => principal;
const authenticateAsync = async (request) => {
  request.teamPrincipal = await cacheAsync();
};
const asyncGuards = [async () => Boolean(await admitAsync()), async () => (await authenticateAsync({}), true)];
const syncGuards = [() => Boolean(verdict), () => Boolean(({}.teamPrincipal = principal))];
const guardStorage = new AsyncLocalStorage();
show('the two guards, async (main), AsyncLocalStorage on', await perAsyncCall(() => guardStorage.run({}, () => tryActivate(asyncGuards))));
show('the two guards, plain returns on cache and lease hits', await perAsyncCall(() => guardStorage.run({}, () => tryActivate(syncGuards))));
// The key's hash, computed by both guards (main) or once per request (a WeakMap by request).
const hashes = new WeakMap();
const hashOnceWeakMap = (req) => {
  const known = hashes.get(req);
  if (known?.key === key) return known.hash;
  const hash = hashSecretHex(key);
  hashes.set(req, { key, hash });
  return hash;
};
const KEY_HASH = Symbol('keyHash');
const hashOnce = (req) => {
  const known = req[KEY_HASH];
  if (known !== undefined && known.key === key) return known.hash;
  const hash = hashSecretHex(key);
  req[KEY_HASH] = { key, hash };
  return hash;
};
class FakeRequest {
  constructor() {
    this.id = 'x';
    this.headers = {};
    this.params = {};
  }
}
show(
  'the key hashed by both guards (main), a request object made per call',
  perCall(() => {
    const req = new FakeRequest();
    return hashSecretHex(key) + hashSecretHex(key) + req.id;
  }),
);
show(
  'the key hashed once, remembered in a WeakMap by request',
  perCall(() => {
    const req = new FakeRequest();
    return hashOnceWeakMap(req) + hashOnceWeakMap(req);
  }),
);
show(
  'the key hashed once, remembered on the request (keyHashOf)',
  perCall(() => {
    const req = new FakeRequest();
    return hashOnce(req) + hashOnce(req);
  }),
);

await fastify.close();
