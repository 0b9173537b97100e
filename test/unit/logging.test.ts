import { Writable } from 'node:stream';
import { createLogger, errorListener } from '../../src/common/logger';
import { noteRoute, redactUrl } from '../../src/common/redaction';
import { requestIdFrom } from '../../src/common/request-context';

/** A logger at trace level whose JSON lines land in `lines`. */
function capturingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ logLevel: 'trace', logFormat: 'json' }, { service: 'api', destination });
  return { logger, lines };
}

describe('log redaction', () => {
  it('keeps the path and harmless query values but replaces signatures, tokens and keys', () => {
    expect(redactUrl('/v3/order/1/requisition/pdf/signed?expires=1700000000&signature=rq1.abc')).toBe(
      '/v3/order/1/requisition/pdf/signed?expires=1700000000&signature=[redacted]',
    );
    expect(redactUrl('/x?access_token=t&page=2&api_key=k&Sig=s')).toBe('/x?access_token=[redacted]&page=2&api_key=[redacted]&Sig=[redacted]');
    expect(redactUrl('/x?%73ignature=s')).toBe('/x?%73ignature=[redacted]');
    expect(redactUrl('/v3/order/1')).toBe('/v3/order/1');
  });

  it('replaces credentials and names in query strings: OAuth state and code, patient and recipient names, search input', () => {
    expect(redactUrl('/v2/link/connect/oura?state=ST4TE&code=C0DE&scope=daily')).toBe('/v2/link/connect/oura?state=[redacted]&code=[redacted]&scope=daily');
    expect(redactUrl('/v3/orders?patient_name=Zeb&search_input=Quar%20ter&shipping_recipient_name=Wil&page=2&order_key=created_at')).toBe(
      '/v3/orders?patient_name=[redacted]&search_input=[redacted]&shipping_recipient_name=[redacted]&page=2&order_key=[redacted]',
    );
    expect(redactUrl('/v2/team/users/search?query_id=patient%40example.com')).toBe('/v2/team/users/search?query_id=[redacted]');
    expect(redactUrl('/x?recipient_email=a&link_token=b&key_id=c&user_id=d')).toBe('/x?recipient_email=[redacted]&link_token=[redacted]&key_id=c&user_id=d');
  });

  it('replaces sensitive path parameters of the noted routes, whether a request matched its route or not', () => {
    for (const pattern of [
      '/portal/launch/:token',
      '/p/:code',
      '/p/:code/send',
      '/v2/user/:user_id/portal_url/:code',
      '/v2/user/resolve/:client_user_id',
      '/v2/user/:user_id',
      '/management_key/:key_id',
    ]) {
      noteRoute(pattern);
    }
    expect(redactUrl('/portal/launch/T0KEN')).toBe('/portal/launch/[redacted]');
    expect(redactUrl('/portal/launch/T0KEN/extra?x=1')).toBe('/portal/launch/[redacted]/extra?x=1');
    expect(redactUrl('/p/C0DE')).toBe('/p/[redacted]');
    expect(redactUrl('/p/C0DE/verify')).toBe('/p/[redacted]/verify');
    expect(redactUrl('/v2/user/u-1/portal_url/C0DE')).toBe('/v2/user/u-1/portal_url/[redacted]');
    expect(redactUrl('/v2/user/resolve/patient@example.com')).toBe('/v2/user/resolve/[redacted]');
    // Ids stay: they name a resource, not a person or a credential.
    expect(redactUrl('/v2/user/u-1')).toBe('/v2/user/u-1');
    expect(redactUrl('/v2/user/u-1/portal_urls')).toBe('/v2/user/u-1/portal_urls');
    expect(redactUrl('/management_key/k-1')).toBe('/management_key/k-1');
    expect(redactUrl('/portal')).toBe('/portal');
    expect(redactUrl('/portal/orders/o-1')).toBe('/portal/orders/o-1');
  });

  it('never writes credential headers, PHI fields or secrets, whatever object carries them', () => {
    const { logger, lines } = capturingLogger();
    logger.info(
      {
        req: {
          method: 'GET',
          url: '/a?signature=SIG123',
          headers: { 'x-service-api-key': 'sk_KEY123', authorization: 'Bearer TOK123', cookie: 'c=COOKIE123' },
        },
        headers: { 'x-management-key': 'mk_KEY456', 'x-vital-api-key': 'vk_KEY789' },
        patient_details: { first_name: 'Wilhelmina', last_name: 'Zebulon' },
        webhook: { secret: 'whsec_SECRET1', url: 'https://example.test/hook' },
        last_name: 'Zebulon',
      },
      'a line with everything',
    );
    expect(lines).toHaveLength(1);
    for (const leaked of ['SIG123', 'sk_KEY123', 'TOK123', 'COOKIE123', 'mk_KEY456', 'vk_KEY789', 'Wilhelmina', 'Zebulon', 'whsec_SECRET1']) {
      expect(lines[0]).not.toContain(leaked);
    }
    expect(JSON.parse(lines[0])).toMatchObject({ service: 'api', level: 'info', msg: 'a line with everything', webhook: { url: 'https://example.test/hook' } });
  });
});

describe('log redaction below the top level', () => {
  it('reaches errors, arrays and nested headers, and leaves the logged object untouched', () => {
    const { logger, lines } = capturingLogger();
    const failure = Object.assign(new Error('delivery failed'), { config: { headers: { authorization: 'Bearer ERRTOK1' } }, email: 'err@leak.test' });
    const logged = { deliveries: [{ id: 'd1', webhook_secret: 'whsec_ARR1' }], endpoint: { headers: { 'x-labflow-signature': 'v1=SIGX' } } };
    logger.error({ err: failure, ...logged }, 'with an error');
    expect(lines).toHaveLength(1);
    for (const leaked of ['ERRTOK1', 'err@leak.test', 'whsec_ARR1', 'v1=SIGX']) expect(lines[0]).not.toContain(leaked);
    expect(JSON.parse(lines[0])).toMatchObject({ err: { message: 'delivery failed' }, deliveries: [{ id: 'd1', webhook_secret: '[redacted]' }] });
    // The caller's objects keep their values (redaction copies what it changes).
    expect(logged.deliveries[0].webhook_secret).toBe('whsec_ARR1');
    expect(failure.email).toBe('err@leak.test');
  });
});

describe('request ids', () => {
  it('keeps a well-formed x-request-id and replaces anything else with a UUID', () => {
    expect(requestIdFrom('req-123_abc.DEF:9')).toBe('req-123_abc.DEF:9');
    expect(requestIdFrom(['first-id', 'second-id'])).toBe('first-id');
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const bad of [undefined, '', 'has space', 'x'.repeat(129), 'new\nline', '{"json":1}', 'ünïcode']) {
      expect(requestIdFrom(bad)).toMatch(uuid);
    }
  });
});

describe('errorListener', () => {
  it('logs the first of a run of identical errors and counts the repeats into the next report', () => {
    const warnings: string[] = [];
    let now = 1_000_000;
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const listener = errorListener({ warn: (message) => warnings.push(message) }, 'Redis', 30_000);
      for (let i = 0; i < 50; i += 1) listener(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
      listener(new Error('another failure'));
      expect(warnings).toEqual(['Redis: connect ECONNREFUSED 127.0.0.1:6379', 'Redis: another failure']);
      now += 30_001;
      listener(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
      expect(warnings[2]).toBe('Redis: connect ECONNREFUSED 127.0.0.1:6379 (repeated 49 times since the last report)');
    } finally {
      spy.mockRestore();
    }
  });
});
