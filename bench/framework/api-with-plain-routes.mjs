// The production API (ApiModule, built by createHttpApp as src/main.ts builds it) with two plain
// Fastify routes beside its Nest routes, for bench:framework: `/plain/v2/user/:user_id` and
// `/plain/v3/order/:order_id` pass the API's own rate-limit and key guards and call the very service
// method the Nest controller calls, behind the same Fastify hooks (request id, request context,
// request log line, metrics). What differs is only Nest's per-request pipeline: router proxy,
// execution context, guard consumer, parameter decorators through the global zod pipe, response
// controller. Plain JavaScript run by node from dist/, as the API runs. Never part of the product.
//
//   API_PORT and the API's settings (as for dist/src/main.js)
import { createRequire } from 'node:module';
import process from 'node:process';

const require = createRequire(import.meta.url);
require('reflect-metadata');
const { Reflector } = require('@nestjs/core');
const { ExecutionContextHost } = require('@nestjs/core/helpers/execution-context-host');
const { ApiModule, API_DOCUMENT } = require('../../dist/src/app.module');
const { createHttpApp } = require('../../dist/src/common/http-app');
const { loadConfig } = require('../../dist/src/config/config');
const { ApiKeysService } = require('../../dist/src/auth/api-keys.service');
const { TeamApiKeyGuard } = require('../../dist/src/auth/guards');
const { TeamKeyCache } = require('../../dist/src/auth/team-key-cache');
const { ApiRateLimitGuard } = require('../../dist/src/rate-limits/rate-limit.guard');
const { RequestLimiter } = require('../../dist/src/rate-limits/request-limiter');
const { UsersService } = require('../../dist/src/users/users.service');
const { OrderQueriesService } = require('../../dist/src/orders/order-queries.service');

const config = loadConfig();
const app = await createHttpApp(ApiModule.forRoot(config), config, API_DOCUMENT);
const get = (type) => app.get(type, { strict: false });
const guard = new TeamApiKeyGuard(get(ApiKeysService), get(Reflector), get(TeamKeyCache));
const rateLimits = new ApiRateLimitGuard(get(Reflector), get(RequestLimiter));
const users = get(UsersService);
const orders = get(OrderQueriesService);
const fastify = app.getHttpAdapter().getInstance();
/** The plain routes' class and handler, as Nest would name them to the rate-limit guard (no route metadata). */
class PlainRoutes {}
const plainHandler = () => undefined;
// The guards' own checks, without Nest's guard consumer around them: the rate limits (one Redis
// round trip, as every Nest route of the API pays), then the key (header, key cache, revocation).
const principalOf = async (request, reply) => {
  await rateLimits.canActivate(new ExecutionContextHost([request, reply], PlainRoutes, plainHandler));
  await guard.authenticate(request);
  return request.teamPrincipal;
};
fastify.get('/plain/v2/user/:user_id', async (request, reply) => users.get(await principalOf(request, reply), request.params.user_id));
fastify.get('/plain/v3/order/:order_id', async (request, reply) => orders.get(await principalOf(request, reply), request.params.order_id));
await app.listen({ port: Number(process.env.API_PORT), host: config.api.host });
