import { once } from 'node:events';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger, type LoggedRequest, requestLineWriter } from '../../src/common/logger';

/**
 * The `request completed` line is written without pino (requestLineWriter) for speed; it must stay
 * the line pino writes for `request.log.info({ req, res, responseTime }, 'request completed')` on
 * the request's child logger, which log shippers and the logging e2e test read.
 */
function capturingLogger(level: 'info' | 'warn' = 'info') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ logLevel: level, logFormat: 'json' }, { service: 'api', destination }) };
}

/** Both lines as objects, their times (written a moment apart) set aside after checking their format. */
function withoutTime(line: string): Record<string, unknown> {
  const { time, ...rest } = JSON.parse(line) as Record<string, unknown>;
  expect(time).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/));
  return rest;
}

const requests: Array<[string, LoggedRequest]> = [
  ['a plain read', { method: 'GET', url: '/v2/user/8d1c5f5e-1b8e-4c4e-9a51-3f0c1c1c1c1c', ip: '127.0.0.1', headers: { 'user-agent': 'vital-node/3.1' } }],
  [
    'a signed link (its signature redacted), no user agent',
    { method: 'GET', url: '/v3/order/x/requisition/pdf?expires=1&signature=abc%20def', ip: '::1', headers: {} },
  ],
  [
    'a URL with quotes and a non-ASCII user agent',
    { method: 'POST', url: '/v2/user?q="quoted"\\', ip: '10.0.0.1', headers: { 'user-agent': 'Zürich "agent"' } },
  ],
  ['no client address and no headers (fields left out, as JSON.stringify leaves them)', { method: 'GET', url: '/health' }],
];

test.each(requests)("the hand-built request line equals pino's, field for field and in order: %s", (_name, req) => {
  const { lines, logger } = capturingLogger();
  const writeLine = requestLineWriter(logger);
  expect(writeLine).not.toBeNull();
  logger.child({ requestId: 'req-1' }).info({ req, res: { statusCode: 201 }, responseTime: 12.345 }, 'request completed');
  writeLine!({ requestId: 'req-1', req, statusCode: 201, responseTime: 12.345 });

  expect(lines).toHaveLength(2);
  const [viaPino, handBuilt] = lines.map(withoutTime);
  expect(handBuilt).toEqual(viaPino);
  expect(Object.keys(handBuilt)).toEqual(Object.keys(viaPino));
  expect(JSON.stringify(handBuilt)).toBe(JSON.stringify(viaPino));
  expect(lines[1]).not.toContain('abc');
});

test('the line respects the logger level, also when it changes later', () => {
  const { lines, logger } = capturingLogger('warn');
  const writeLine = requestLineWriter(logger)!;
  const request = { requestId: 'r', req: { method: 'GET', url: '/', ip: '127.0.0.1', headers: {} }, statusCode: 200, responseTime: 1 };
  writeLine(request);
  expect(lines).toEqual([]);
  logger.level = 'info';
  writeLine(request);
  expect(lines).toHaveLength(1);
});

test('a logger that is not a JSON one of createLogger gets no writer (its caller logs through pino)', async () => {
  const pretty = createLogger({ logLevel: 'info', logFormat: 'pretty' }, { service: 'api' });
  try {
    expect(requestLineWriter(pretty)).toBeNull();
  } finally {
    // Its pino-pretty transport is a worker thread that keeps the process alive until it has
    // started: left running, it held up the exit of the Jest worker this file ran in (force exited).
    const transport = (pretty as unknown as Record<symbol, NodeJS.WritableStream>)[pino.symbols.streamSym];
    const closed = once(transport, 'close');
    transport.end();
    await closed;
  }
});
