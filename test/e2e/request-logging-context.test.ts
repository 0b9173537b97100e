import { Controller, Get, Logger, Module, Post } from '@nestjs/common';
import { Body } from '../../src/common/request-params';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Writable } from 'node:stream';
import { Public } from '../../src/auth/principal';
import { createHttpApp, HTTP_GLOBALS } from '../../src/common/http-app';
import { createLogger } from '../../src/common/logger';
import { currentRequestId } from '../../src/common/request-context';
import { loadConfig } from '../../src/config/config';
import { call } from '../helpers/stack';

/**
 * What a route handler writes with Nest's `Logger` carries its request's id (the request's own
 * logger), on GET and after a JSON body was parsed alike, and so does the 5xx the exception filter
 * logs; outside a request, lines have none. The handler also sees the id in the request context.
 */
const logger = new Logger('context-test');

@Public()
@Controller('context-test')
class ContextTestController {
  @Get()
  get() {
    logger.log('in a GET handler');
    return { requestId: currentRequestId() ?? null };
  }

  @Post()
  async post(@Body() body: unknown) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    logger.warn('in a POST handler, after a timer');
    return { requestId: currentRequestId() ?? null, body };
  }

  @Get('fail')
  fail() {
    throw new Error('boom');
  }
}

@Module({ controllers: [ContextTestController], providers: [...HTTP_GLOBALS] })
class ContextTestModule {}

let app: NestFastifyApplication;
let url: string;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const config = { ...loadConfig({ ...process.env, LOG_REQUESTS: 'false' }), metrics: { enabled: false, token: null, temporalPort: 0 } } as ReturnType<
    typeof loadConfig
  >;
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const captured = createLogger({ logLevel: 'info', logFormat: 'json' }, { service: 'api', destination });
  app = await createHttpApp(
    { module: ContextTestModule },
    config,
    { title: 't', description: 't', security: { name: 'k', header: 'x-k' }, service: 'api' },
    { logger: captured },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await app?.close();
});

const linesWith = (msg: RegExp) => lines.filter((line) => typeof line.msg === 'string' && msg.test(line.msg));

test('a GET handler logs with its request id and sees it in the request context', async () => {
  const response = await call(url, 'GET', '/context-test', { headers: { 'x-request-id': 'ctx-get-1' } });
  expect(response.body).toEqual({ requestId: 'ctx-get-1' });
  expect(linesWith(/in a GET handler/).at(-1)).toMatchObject({ requestId: 'ctx-get-1', context: 'context-test' });
});

test('a POST handler, after its JSON body was parsed and a timer, too', async () => {
  const response = await call(url, 'POST', '/context-test', { headers: { 'x-request-id': 'ctx-post-1' }, body: { a: 1 } });
  expect(response.body).toEqual({ requestId: 'ctx-post-1', body: { a: 1 } });
  expect(linesWith(/in a POST handler/).at(-1)).toMatchObject({ requestId: 'ctx-post-1', context: 'context-test' });
});

test('the exception filter logs a 5xx with the request id', async () => {
  const response = await call(url, 'GET', '/context-test/fail', { headers: { 'x-request-id': 'ctx-fail-1' } });
  expect(response.status).toBe(500);
  expect(linesWith(/context-test\/fail/).at(-1)).toMatchObject({ requestId: 'ctx-fail-1', context: 'errors', level: 'error' });
});

test('a line written outside any request carries no request id', () => {
  logger.log('outside a request');
  const [line] = linesWith(/outside a request/);
  expect(line).toMatchObject({ context: 'context-test' });
  expect(line).not.toHaveProperty('requestId');
});
