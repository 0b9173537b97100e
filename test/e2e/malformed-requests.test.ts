import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { describeRequest, RawHttpClient, type RawRequest, type RawResponse } from '../helpers/raw-http';
import { documentedRoutes, type OpenApiDocument, type PathPart, sampleValue, slots, withText } from '../helpers/openapi-routes';

/**
 * Malformed JSON, wrong types, unknown routes and oversized bodies get a 4xx `{detail}`, never a
 * 5xx. Each route family below gets at least 1,000 generated requests (fast-check); the property
 * is: the status is 2xx or 4xx, a body over the 1 MiB limit gets 413, and every non-2xx answer
 * (HEAD aside: it has no body) is JSON with `detail`, a list of `{loc, msg, type}` for 422.
 *
 * Families: users-create, users-patch, users-read, users-delete (and undo), insurance-create,
 * insurance-latest, every documented body route of both APIs with strings Postgres cannot store
 * (NUL, lone UTF-16 surrogates) and huge ones, every documented route with NUL in a path or query
 * parameter, unknown routes and methods, auth headers, and HTTP-level errors that Fastify
 * raises before any route runs (undecodable paths, parameters over the router's 100-character
 * limit, unknown method tokens, headers over Node's 16 KiB limit). The route families only use
 * paths the router can decode, so each family points at one kind of defect.
 *
 * Valid-looking requests may succeed and write rows: everything runs as a tenant of its own.
 * Deletions start a 60 s grace workflow on this stack's task queue; the worker stops at close.
 */

const RUNS = 1000;
const BODY_LIMIT = 1_048_576;

/** One generated request; `oversized` marks a body above the limit (413 expected). */
interface Case {
  req: RawRequest;
  oversized?: boolean;
  /** A further rule for this case's answer: why it breaks it, or null. */
  check?: (res: RawResponse) => string | null;
  /** Sent to the management API rather than the main one. */
  management?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------

/** encodeURIComponent that never throws (lone surrogates become U+FFFD). */
const encode = (value: string) => encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '\ufffd'));

/**
 * A string as it may appear unencoded on a request line: anything but printable ASCII is
 * percent-encoded, everything else (including a bare `%`, `#`, `?`, `{`) is left for the server
 * to cope with.
 */
const raw = (value: string) => value.replace(/[^\u0021-\u007e]/g, (char) => encode(char));

/** A header value Node will put on the wire (latin-1, no CR/LF/NUL). */
const headerSafe = (value: string) => value.replace(/[^\t\u0020-\u007e\u0080-\u00ff]/g, '?');

const tricky = fc.constantFrom(
  '',
  ' ',
  '\t\n',
  '\u0000',
  'nul\u0000inside',
  '\ud800',
  'lone\udfffsurrogate',
  '\u202eevil',
  '\ufeffbom',
  'Ω≈ç√∫',
  '🧪🧬',
  'ﷺ',
  '../../etc/passwd',
  '%00',
  '%',
  "'; DROP TABLE users; --",
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
);

const hugeString = fc
  .tuple(fc.constantFrom('a', 'é', '😀', '\u0000', '"', '\\', ' '), fc.integer({ min: 5_000, max: 120_000 }))
  .map(([char, count]) => char.repeat(count));

const anyString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 4, arbitrary: tricky },
  { weight: 1, arbitrary: hugeString },
);

const smallJson = fc.jsonValue({ maxDepth: 2 });

/** Values of the wrong JSON type for a string/boolean/object field. */
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.array(smallJson, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), smallJson, { maxKeys: 3 }),
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 0.1),
);

/** A field value: a plausible one, a strange string, a wrong type, or absent. */
const fieldValue = (plausible: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 5, arbitrary: plausible },
    { weight: 3, arbitrary: anyString },
    { weight: 3, arbitrary: wrongType },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

const isoDates = fc.oneof(
  fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)),
  fc.constantFrom(
    '2024-01-01',
    '2024-02-29',
    '2023-02-29',
    '2024-02-30',
    '0000-01-01',
    '0001-01-01',
    '9999-12-31',
    '-0001-01-01',
    '+002024-01-01',
    '2024-1-1',
    '2024-01-01T00:00:00Z',
    '20240101',
    '2024/01/01',
    '01/02/2024',
    '2024-13-01',
    '2024-00-10',
  ),
);

const timeZones = fc.oneof(
  fc.constantFrom(
    'UTC',
    'Europe/London',
    'America/New_York',
    'Etc/GMT+5',
    'EST5EDT',
    'US/Pacific',
    'Mars/Olympus_Mons',
    '+01:00',
    'utc',
    'Europe/London ',
    'Europe//London',
    'A'.repeat(1000),
  ),
  fc.string({ maxLength: 30 }),
);

const clientUserIds = fc.oneof(
  { weight: 1, arbitrary: fc.uuid().map((uuid) => `fuzz-${uuid}`) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 255 }) },
  { weight: 1, arbitrary: fc.constantFrom('jane@example.com', '+14155552671', '(415) 555-2671', 'a'.repeat(255), 'a'.repeat(256), '   padded   ') },
  { weight: 3, arbitrary: tricky },
);

/** Top-level JSON text with N levels of nesting (JSON.stringify of such a value would recurse). */
const deepJsonText = (fields: readonly string[]) =>
  fc.tuple(fc.integer({ min: 20, max: 30_000 }), fc.constantFrom('array', 'object', 'in-field'), fc.constantFrom(...fields)).map(([depth, shape, field]) => {
    if (shape === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    if (shape === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    return `{${JSON.stringify(field)}:${'['.repeat(depth)}${']'.repeat(depth)}}`;
  });

/** Text that is not JSON, often almost JSON. */
const invalidJsonText = (validText: fc.Arbitrary<string>) =>
  fc.oneof(
    validText.filter((text) => text.length > 1).chain((text) => fc.integer({ min: 1, max: text.length - 1 }).map((end) => text.slice(0, end))),
    validText.map((text) => (text.endsWith('}') ? `${text.slice(0, -1)},}` : `${text},`)),
    validText.map((text) => text.replace(/"/g, "'")),
    validText.map((text) => `\ufeff${text}`),
    validText.map((text) => `${text}${text}`),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc.constantFrom(
      '',
      ' ',
      '{',
      '}',
      '[',
      '{"a":}',
      '{"a" 1}',
      '{a:1}',
      '[1,2,]',
      '{"a":1,,"b":2}',
      'NaN',
      'Infinity',
      '-',
      'tru',
      'nul',
      '"unterminated',
      '{"a":"\\x41"}',
      '{"a":"\\u12"}',
      '{"a":1} // comment',
      '/* c */ {}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"a":1}\u0000',
      '\u0000',
      '{"a":1e999999}',
      '{"a":-}',
    ),
  );

const jsonContentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=UTF-8',
  'application/json ; charset=utf-8',
);

const wrongContentTypes = fc.oneof(
  fc.constantFrom(
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=----fuzz',
    'multipart/form-data',
    'application/xml',
    'text/html',
    'application/octet-stream',
    'image/png',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'application/json; charset="utf-8',
    'application/vnd.api+json',
    'application/problem+json',
    'application/jsonx',
    'json',
    '*/*',
    '',
    ';',
    'application/json;;',
    'application/json; =',
    '/',
    'é/é',
  ),
  fc.string({ maxLength: 30 }).map(headerSafe),
);

type BodyCase = { body?: string | Buffer; contentType?: string; oversized?: boolean };

/** Bodies for a route whose JSON body has `fields`; `shaped` produces objects of roughly the right shape. */
const bodies = (shaped: fc.Arbitrary<unknown>, fields: readonly string[]): fc.Arbitrary<BodyCase> => {
  const shapedText = shaped.map((value) => JSON.stringify(value) ?? 'null');
  return fc.oneof(
    { weight: 30, arbitrary: fc.record({ body: shapedText, contentType: jsonContentTypes }) },
    { weight: 12, arbitrary: fc.record({ body: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)), contentType: jsonContentTypes }) },
    { weight: 15, arbitrary: fc.record({ body: invalidJsonText(shapedText), contentType: jsonContentTypes }) },
    { weight: 6, arbitrary: fc.record({ body: deepJsonText(fields), contentType: jsonContentTypes }) },
    {
      weight: 12,
      arbitrary: fc.record({
        body: fc.oneof(shapedText, invalidJsonText(shapedText), fc.constant('client_user_id=x&a=1')),
        contentType: wrongContentTypes,
      }),
    },
    {
      weight: 5,
      arbitrary: fc.oneof(
        fc.constant<BodyCase>({}),
        fc.record({ contentType: jsonContentTypes }),
        shapedText.map((body): BodyCase => ({ body })),
        fc.record({ body: fc.constant(''), contentType: jsonContentTypes }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: BODY_LIMIT + 1, max: 2 * BODY_LIMIT }), fc.constantFrom(...fields), fc.constantFrom('string', 'array', 'raw'))
        .map(([size, field, shape]): BodyCase => {
          let body: string;
          if (shape === 'string') body = `{${JSON.stringify(field)}:"${'a'.repeat(size)}"}`;
          else if (shape === 'array') body = `[${'1,'.repeat(Math.ceil(size / 2))}1]`;
          else body = 'x'.repeat(size);
          return { body, contentType: 'application/json', oversized: true };
        }),
    },
  );
};

/** A query string (with its `?`), sometimes absent, sometimes not percent-encoded. */
const queryStrings = (keys: readonly string[]) => {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...keys) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', `${keys[0]}[]`, `${keys[0]}[0]`, 'a[b][c]', '') },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
  const value = fc.oneof(
    fc.constantFrom(
      '',
      '0',
      '1',
      '-1',
      '100',
      '1000',
      '1001',
      '1e3',
      '1e20',
      '9007199254740993',
      '99999999999999999999',
      '2147483648',
      '9223372036854775808',
      '-0',
      '0x10',
      '1.5',
      'NaN',
      'Infinity',
      '-Infinity',
      'true',
      'false',
      'TRUE',
      '1',
      'yes',
      'null',
      '[]',
      ' 7 ',
      '1,2',
    ),
    fc.integer().map(String),
    fc.double().map(String),
    fc.uuid(),
    anyString.filter((text) => text.length < 500),
  );
  const pair = fc.tuple(key, fc.option(value, { nil: undefined }), fc.boolean()).map(([k, v, encoded]) => {
    const name = encoded ? encode(k) : raw(k);
    if (v === undefined) return name;
    return `${name}=${encoded ? encode(v) : raw(v)}`;
  });
  return fc.option(
    fc.array(pair, { maxLength: 5 }).map((pairs) => `?${pairs.join('&')}`),
    { nil: '', freq: 3 },
  );
};

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);

/** Whether the router gets as far as reading the body: every segment decodes and fits its limit. */
const routable = (path: string) =>
  path
    .split('?')[0]
    .split('/')
    .every((segment) => {
      try {
        return decodeURIComponent(segment).length <= 100 && segment.length <= 100;
      } catch {
        return false;
      }
    });

/**
 * One path segment: a real id, a random uuid, or something that is no id at all, but always
 * one the router can decode and that fits its parameter limit (those are `unroutableSegments`).
 */
const segments = (realIds: readonly string[]) =>
  fc
    .oneof(
      { weight: 4, arbitrary: fc.constantFrom(...realIds) },
      { weight: 3, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.constantFrom('00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', `{${randomUUID()}}`) },
      { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map(encode) },
      { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map(raw) },
      { weight: 2, arbitrary: fc.constantFrom('%00', '%2F', '%2e%2e', '%20', '..', '.', '~', '0', '-1', ';', '*', "'", '"', '{}', '[]') },
      { weight: 1, arbitrary: fc.integer({ min: 37, max: 100 }).map((length) => 'a'.repeat(length)) },
    )
    .filter((segment) => routable(`/${segment}`));

/** Segments the router refuses before any route runs: bad percent-encoding, or over 100 characters. */
const unroutableSegments = fc.oneof(
  fc.constantFrom('%', '%%', '%zz', '%E0%A4%A', '%C0%AF', '%FF', '%ED%A0%80', '%u0041'),
  fc
    .tuple(fc.string({ maxLength: 12 }).map(raw), pick(['%', '%z', '%G1', '%C0', '%FF%FE']))
    .map(([text, bad]) => `${text}${bad}`)
    .filter((segment) => !routable(`/${segment}`)),
  fc.integer({ min: 101, max: 4000 }).map((length) => 'a'.repeat(length)),
  fc
    .string({ unit: 'binary', minLength: 40, maxLength: 120 })
    .map(encode)
    .filter((segment) => segment.length > 100),
);

// ---------------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------------

describe('malformed requests get a 4xx {detail}, never a 5xx (property-based)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let http: RawHttpClient;
  let managementHttp: RawHttpClient;
  /** Live users that the read, patch and insurance families aim at. */
  let users: Array<{ user_id: string; client_user_id: string }>;
  /** Users the delete family deletes and undeletes. */
  let doomed: Array<{ user_id: string; client_user_id: string }>;
  const report: string[] = [];

  beforeAll(async () => {
    // The auth family sends hundreds of wrong keys from one address: with the refused-key limit
    // on, the address would get 429 after twenty and every family after it would test the
    // limiter, not the routes (test/e2e/rate-limits.test.ts tests the limit). Partner and WHOOP
    // webhooks are configured, so that they answer a bad signature with 401 rather than 503 (not
    // configured); nothing reaches WHOOP: no request here is signed.
    stack = await startStack({
      management: true,
      env: {
        USER_DELETION_GRACE: '60s',
        RATE_LIMIT_INVALID_KEYS: 'off',
        PARTNER_WEBHOOK_SECRET: 'malformed-requests-partner-secret',
        PUBLIC_API_URL: 'https://labflow.test',
        WHOOP_CLIENT_ID: 'malformed-requests',
        WHOOP_CLIENT_SECRET: 'malformed-requests-secret',
        WHOOP_API_URL: 'http://127.0.0.1:9',
      },
    });
    tenant = await createTenant(stack.db);
    http = new RawHttpClient(stack.apiUrl);
    managementHttp = new RawHttpClient(stack.managementUrl);
    const create = async (clientUserId: string) => {
      const response = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: clientUserId } });
      expect(response.status).toBe(200);
      return response.body as { user_id: string; client_user_id: string };
    };
    users = [];
    doomed = [];
    for (let i = 0; i < 4; i += 1) users.push(await create(`fuzz-live-${i}-${randomUUID()}`));
    for (let i = 0; i < 4; i += 1) doomed.push(await create(`fuzz-doomed-${i}-${randomUUID()}`));
  });

  afterAll(async () => {
    http?.close();
    managementHttp?.close();
    await stack?.close();
    if (report.length) console.log(`malformed-requests:\n${report.join('\n')}\n  (re-sent after a stale keep-alive socket: ${http?.retries ?? 0})`);
  });

  const headersFor = (contentType?: string): Record<string, string> => ({
    'x-service-api-key': tenant.apiKey,
    ...(contentType !== undefined ? { 'content-type': contentType } : {}),
  });

  /**
   * A request with `body`. Over the limit, a route that reads bodies must answer 413; but
   * Fastify reads no body for GET/HEAD, the router refuses a path it cannot decode or a
   * parameter over its length limit before any body is read, and an unknown route may answer
   * 404 first.
   */
  const withBody = (method: string, path: string, body: BodyCase, knownRoute = true): Case => ({
    req: { method, path, headers: headersFor(body.contentType), body: body.body },
    oversized: body.oversized && knownRoute && routable(path) && !['GET', 'HEAD'].includes(method),
  });

  /** Why this answer breaks the rule, or null when it is fine. */
  const problem = (c: Case, res: RawResponse): string | null => {
    if (res.status >= 500) return 'server error';
    if (res.status < 200 || (res.status >= 300 && res.status < 400)) return 'status is neither 2xx nor 4xx';
    if (c.oversized && res.status !== 413) return 'body over the limit but no 413';
    if (res.status < 300 || c.req.method === 'HEAD') return null;
    const body = res.json;
    if (typeof body !== 'object' || body === null || Array.isArray(body) || !('detail' in body)) return 'error body without detail';
    if (res.status === 422) {
      const detail = (body as { detail: unknown }).detail;
      const wellFormed =
        Array.isArray(detail) &&
        detail.length > 0 &&
        detail.every(
          (issue) =>
            typeof issue === 'object' &&
            issue !== null &&
            Array.isArray((issue as { loc?: unknown }).loc) &&
            typeof (issue as { msg?: unknown }).msg === 'string' &&
            typeof (issue as { type?: unknown }).type === 'string',
        );
      if (!wellFormed) return '422 detail is not a list of {loc, msg, type}';
    }
    return null;
  };

  /** Sends every generated case and holds the property; counts statuses for the report. */
  const runFamily = async (family: string, cases: fc.Arbitrary<Case>) => {
    const statuses = new Map<number, number>();
    const started = Date.now();
    // fast-check prints a counterexample with this instead of the raw (possibly 2 MiB) value.
    const printable = cases.map((c) => Object.assign(c, { [fc.toStringMethod]: () => describeRequest(c.req) }));
    await fc.assert(
      fc.asyncProperty(printable, async (c) => {
        let res: RawResponse;
        try {
          res = await (c.management ? managementHttp : http).send(c.req);
        } catch (error) {
          throw new Error(`no HTTP answer (${(error as Error).message}) to ${describeRequest(c.req)}`);
        }
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const why = problem(c, res) ?? c.check?.(res) ?? null;
        if (why) {
          const text = res.text.length > 600 ? `${res.text.slice(0, 600)}…` : res.text;
          throw new Error(`${why}: ${describeRequest(c.req)}\n  → ${res.status} ${text}`);
        }
      }),
      { numRuns: RUNS },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const counts = [...statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ');
    report.push(`  ${family}: ${RUNS} runs in ${seconds}s (${counts})`);
  };

  const USER_FIELDS = ['client_user_id', 'fallback_time_zone', 'fallback_birth_date', 'ingestion_start', 'ingestion_end'] as const;
  const userBodies = () =>
    fc
      .tuple(
        fc.record(
          {
            client_user_id: fieldValue(clientUserIds),
            fallback_time_zone: fieldValue(timeZones),
            fallback_birth_date: fieldValue(isoDates),
            ingestion_start: fieldValue(isoDates),
            ingestion_end: fieldValue(isoDates),
          },
          { requiredKeys: [] },
        ),
        fc.dictionary(fc.string({ maxLength: 10 }), smallJson, { maxKeys: 2 }),
      )
      .map(([known, extra]) => ({ ...extra, ...known }));
  /** A valid user body with one field set to an edge value, so that edge values reach the database. */
  const nearlyValidUserBodies = () =>
    fc
      .tuple(
        pick(USER_FIELDS),
        fc.oneof(
          { weight: 2, arbitrary: tricky },
          { weight: 2, arbitrary: fc.constantFrom('0000-01-01', '0001-01-01', '9999-12-31', '2024-02-29', '2023-02-29') },
          { weight: 2, arbitrary: anyString },
          { weight: 2, arbitrary: isoDates },
          { weight: 2, arbitrary: timeZones },
          { weight: 2, arbitrary: wrongType },
        ),
        fc.uuid(),
      )
      .map(([field, value, uuid]) => ({ client_user_id: `fuzz-${uuid}`, [field]: value }));
  const someUserBodies = () => fc.oneof({ weight: 3, arbitrary: userBodies() }, { weight: 2, arbitrary: nearlyValidUserBodies() });

  it('users-create: POST /v2/user', async () => {
    const cases = bodies(someUserBodies(), USER_FIELDS).map((body) => withBody('POST', '/v2/user', body));
    await runFamily('users-create', cases);
  });

  it('users-patch: PATCH /v2/user/:user_id', async () => {
    const cases = fc
      .tuple(segments(users.map((u) => u.user_id)), bodies(someUserBodies(), USER_FIELDS))
      .map(([id, body]) => withBody('PATCH', `/v2/user/${id}`, body));
    await runFamily('users-patch', cases);
  });

  it('users-read: GET /v2/user/:user_id, /v2/user/resolve/:client_user_id, /v2/user?offset&limit', async () => {
    const ids = segments(users.map((u) => u.user_id));
    const clientIds = fc.oneof(
      segments(users.map((u) => encode(u.client_user_id))),
      clientUserIds.map(encode).filter((segment) => routable(`/${segment}`)),
    );
    const query = queryStrings(['offset', 'limit']);
    const paths = fc.oneof(
      fc.tuple(ids, query).map(([id, q]) => `/v2/user/${id}${q}`),
      fc.tuple(clientIds, query).map(([id, q]) => `/v2/user/resolve/${id}${q}`),
      fc.tuple(pick(['/v2/user', '/v2/user/', '/v2/user/resolve', '/v2/user/resolve/']), query).map(([p, q]) => `${p}${q}`),
    );
    const cases = fc
      .tuple(pick(['GET', 'GET', 'GET', 'HEAD']), paths, fc.option(bodies(someUserBodies(), USER_FIELDS), { freq: 8 }))
      .map(([method, path, body]): Case => (body ? withBody(method, path, body) : { req: { method, path, headers: headersFor() } }));
    await runFamily('users-read', cases);
  });

  it('users-delete: DELETE /v2/user/:user_id and POST /v2/user/undo_delete', async () => {
    const ids = segments(doomed.map((u) => u.user_id));
    const undoQuery = fc.oneof(
      fc.constantFrom(...doomed.map((u) => `?user_id=${u.user_id}`), ...doomed.map((u) => `?client_user_id=${encode(u.client_user_id)}`)),
      fc.tuple(ids, clientUserIds).map(([id, clientId]) => `?user_id=${id}&client_user_id=${encode(clientId)}`),
      clientUserIds.map((clientId) => `?client_user_id=${encode(clientId)}`),
      ids.map((id) => `?user_id=${id}`),
      queryStrings(['user_id', 'client_user_id']),
    );
    const noBody = fc.constant<BodyCase>({});
    const someBody = fc.oneof({ weight: 3, arbitrary: noBody }, { weight: 1, arbitrary: bodies(someUserBodies(), USER_FIELDS) });
    const cases = fc.oneof(
      fc.tuple(ids, someBody).map(([id, body]) => withBody('DELETE', `/v2/user/${id}`, body)),
      fc.tuple(undoQuery, someBody).map(([query, body]) => withBody('POST', `/v2/user/undo_delete${query}`, body)),
    );
    await runFamily('users-delete', cases);
  });

  const address = () => ({ first_line: '123 Main St', second_line: 'Apt 4', country: 'US', zip: '94107', city: 'San Francisco', state: 'CA' });
  const validInsurance = () => ({
    payor_code: '60054',
    member_id: 'MEMBER-1',
    group_id: 'GRP-1',
    relationship: 'Self',
    insured: {
      first_name: 'Zelda',
      last_name: 'Quartermaine',
      gender: 'female',
      address: address(),
      dob: '1987-03-14',
      email: 'zelda@example.com',
      phone_number: '+14155552671',
    },
    guarantor: {
      first_name: 'Bart',
      last_name: 'Quartermaine',
      address: address(),
      phone_number: '(415) 555-2671',
      household_income: 85000,
      household_size: 3,
      email: 'bart@example.com',
    },
    is_primary: true,
  });
  const INSURANCE_PATHS = [
    'payor_code',
    'member_id',
    'group_id',
    'relationship',
    'is_primary',
    'insured',
    'guarantor',
    ...['first_name', 'last_name', 'gender', 'address', 'dob', 'email', 'phone_number'].map((k) => `insured.${k}`),
    ...['first_line', 'second_line', 'country', 'zip', 'city', 'state', 'access_notes'].map((k) => `insured.address.${k}`),
    ...['first_name', 'last_name', 'address', 'phone_number', 'household_income', 'household_size', 'email'].map((k) => `guarantor.${k}`),
    ...['first_line', 'zip', 'access_notes'].map((k) => `guarantor.address.${k}`),
  ];
  const insuranceValue = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom('60054', '87726', '62308', '00000', 'Self', 'Spouse', 'Other', 'male', '2999-01-01', '0000-01-01') },
    { weight: 2, arbitrary: isoDates },
    { weight: 3, arbitrary: anyString },
    { weight: 3, arbitrary: wrongType },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  /** A valid insurance with 0–4 fields replaced (undefined deletes the field). */
  const insuranceBodies = fc.array(fc.tuple(pick(INSURANCE_PATHS), insuranceValue), { maxLength: 4 }).map((mutations) => {
    const body = validInsurance() as Record<string, unknown>;
    for (const [path, value] of mutations) {
      const parts = path.split('.');
      let node: unknown = body;
      for (const part of parts.slice(0, -1)) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
      if (!node || typeof node !== 'object' || Array.isArray(node)) continue;
      const last = parts[parts.length - 1];
      if (value === undefined) delete (node as Record<string, unknown>)[last];
      // A copy: fc.constant({}) hands out one shared object, and mutating it in place (say
      // insured = {} and then insured.address = {}) could make the body circular.
      else (node as Record<string, unknown>)[last] = typeof value === 'object' && value !== null ? structuredClone(value) : value;
    }
    return body;
  });

  it('insurance-create: POST /v2/user/:user_id/insurance', async () => {
    const ids = fc.oneof({ weight: 4, arbitrary: pick(users.map((u) => u.user_id)) }, { weight: 2, arbitrary: segments(users.map((u) => u.user_id)) });
    const cases = fc
      .tuple(ids, bodies(insuranceBodies, ['payor_code', 'insured', 'guarantor', 'member_id']))
      .map(([id, body]) => withBody('POST', `/v2/user/${id}/insurance`, body));
    await runFamily('insurance-create', cases);
  });

  it('insurance-latest: GET /v2/user/:user_id/insurance/latest?is_primary', async () => {
    const withInsurance = users[0].user_id;
    const created = await call(stack.apiUrl, 'POST', `/v2/user/${withInsurance}/insurance`, { key: tenant.apiKey, body: validInsurance() });
    expect(created.status).toBe(200);
    const ids = fc.oneof({ weight: 3, arbitrary: fc.constant(withInsurance) }, { weight: 3, arbitrary: segments(users.map((u) => u.user_id)) });
    const cases = fc
      .tuple(pick(['GET', 'GET', 'GET', 'HEAD']), ids, queryStrings(['is_primary']), fc.option(bodies(insuranceBodies, ['payor_code']), { freq: 8 }))
      .map(([method, id, query, body]): Case => {
        const path = `/v2/user/${id}/insurance/latest${query}`;
        return body ? withBody(method, path, body) : { req: { method, path, headers: headersFor() } };
      });
    await runFamily('insurance-latest', cases);
  });

  // -------------------------------------------------------------------------------------------
  // Every documented route, from the served OpenAPI documents
  // -------------------------------------------------------------------------------------------

  /** Strings Postgres cannot store, in text or json columns alike: each must be refused (422) wherever it is sent. */
  const unstorable = fc.oneof(
    fc.constantFrom('a\ud800', '\udfff', '\ud800\ud800', '😀\ud83d', '\ude00😀', 'ok\udc00ok', 'x\u0000y', '\u0000', 'nul\u0000\ud800'),
    fc
      .tuple(fc.constantFrom('a', 'é', '😀'), fc.integer({ min: 1_000, max: 100_000 }), fc.constantFrom('\u0000', '\ud800', '\udfff'))
      .map(([char, count, bad]) => `${char.repeat(count)}${bad}`),
  );
  /** Strings Postgres can store, some far over any field's limit. */
  const storableOddities = fc.oneof(
    fc.constantFrom('😀', '\ufeff', '\u202eevil', '', ' ', '\u0001\u001f', '\ufffd'),
    fc.tuple(fc.constantFrom('a', 'é', '😀', ' ', '"', '\\'), fc.integer({ min: 5_000, max: 120_000 })).map(([char, count]) => char.repeat(count)),
  );
  const UNSTORABLE_TYPES = ['string_nul', 'string_unpaired_surrogate'];
  const isUnstorable = (text: string) => text.includes('\u0000') || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

  /** Both documents' routes, each with the client and key header that reach it. */
  const documented = async () => {
    const load = async (url: string) => (await call(url, 'GET', '/openapi.json')).body as OpenApiDocument;
    const [api, management] = await Promise.all([load(stack.apiUrl), load(stack.managementUrl)]);
    const tag = (document: OpenApiDocument, side: 'api' | 'management') => documentedRoutes(document).map((route) => ({ route, document, side }));
    return [...tag(api, 'api'), ...tag(management, 'management')];
  };
  type Documented = Awaited<ReturnType<typeof documented>>[number];
  const keyHeaderFor = (side: Documented['side']): Record<string, string> =>
    side === 'api' ? { 'x-service-api-key': tenant.apiKey } : { 'x-management-key': tenant.managementKey };

  /** Values that get requests past "not found": this tenant's own ids, by parameter or field name. */
  const knownValues = (): Record<string, unknown> => ({
    user_id: users[0].user_id,
    team_id: tenant.teamId,
    team_ids: [tenant.teamId],
    org_id: tenant.orgId,
    env: 'sandbox',
    environment: 'sandbox',
    region: 'us',
  });

  /** The route's path with its parameters filled (`override` replaces one, already encoded). */
  const pathOf = (entry: Documented, override?: { name: string; value: string }) =>
    entry.route.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (override?.name === name) return override.value;
      const parameter = entry.route.parameters.find((p) => p.in === 'path' && p.name === name);
      return encodeURIComponent(String(sampleValue(entry.document, parameter?.schema, knownValues(), name)));
    });

  /** Why a 422 about an unstorable string does not name where it was put (null: it does, or it is about something else). */
  const namesField = (res: RawResponse, loc: PathPart[]) => {
    if (res.status !== 422) return null;
    const issues = (res.json as { detail?: Array<{ loc: PathPart[]; type: string }> }).detail ?? [];
    const about = issues.filter((issue) => UNSTORABLE_TYPES.includes(issue.type));
    if (about.length === 0) return null;
    return about.every((issue) => JSON.stringify(issue.loc) === JSON.stringify(loc))
      ? null
      : `422 names ${JSON.stringify(about.map((i) => i.loc))}, not ${JSON.stringify(loc)}`;
  };

  it('every documented body route: strings Postgres cannot store are refused with 422 naming the field; huge ones never get a 5xx', async () => {
    const routes = (await documented()).filter((entry) => entry.route.body);
    expect(routes.length).toBeGreaterThan(40);
    const cases = fc
      .tuple(pick(routes), fc.oneof({ weight: 3, arbitrary: unstorable }, { weight: 2, arbitrary: storableOddities }), fc.nat(), fc.boolean())
      .map(([entry, text, n, asKey]): Case => {
        const plausible = sampleValue(entry.document, entry.route.body, knownValues());
        const places = slots(plausible);
        const at = places[n % places.length];
        const target = at.reduce<unknown>((node, part) => (node as Record<PathPart, unknown>)[part], plausible);
        const body = withText(plausible, at, text, asKey);
        // Where the text lands: in place of a string, as a key, as an array's extra item, or as an object's extra `note`.
        const loc: PathPart[] =
          typeof target === 'string'
            ? at
            : Array.isArray(target)
              ? [...at, target.length]
              : asKey
                ? [...at, text]
                : target !== null && typeof target === 'object'
                  ? [...at, 'note']
                  : at;
        const req: RawRequest = {
          method: entry.route.method,
          path: pathOf(entry),
          headers: { ...keyHeaderFor(entry.side), 'content-type': 'application/json' },
          body: JSON.stringify(body),
        };
        const check = (res: RawResponse) => {
          if (!isUnstorable(text)) return null;
          if (res.status < 300) return `stored or accepted a string Postgres cannot store (at ${JSON.stringify(loc)})`;
          return namesField(res, ['body', ...loc]);
        };
        return { req, check, management: entry.side === 'management' };
      });
    await runFamily('documented-bodies', cases);
  });

  it('every documented route: NUL in a path or query parameter is a 4xx, never a 5xx', async () => {
    const routes = (await documented()).filter((entry) => entry.route.parameters.some((p) => p.in === 'path' || p.in === 'query'));
    const nul = fc.constantFrom('%00', 'a%00b', '%00%00', `${randomUUID()}%00`);
    const cases = fc.tuple(pick(routes), nul, fc.nat()).map(([entry, value, n]): Case => {
      const parameters = entry.route.parameters.filter((p) => p.in === 'path' || p.in === 'query');
      const parameter = parameters[n % parameters.length];
      const path = parameter.in === 'path' ? pathOf(entry, { name: parameter.name, value }) : `${pathOf(entry)}?${encodeURIComponent(parameter.name)}=${value}`;
      const body = entry.route.body ? JSON.stringify(sampleValue(entry.document, entry.route.body, knownValues())) : undefined;
      const req: RawRequest = {
        method: entry.route.method,
        path,
        headers: { ...keyHeaderFor(entry.side), ...(body ? { 'content-type': 'application/json' } : {}) },
        body,
      };
      const check = (res: RawResponse) =>
        res.status < 300 ? 'accepted a NUL parameter' : namesField(res, [parameter.in === 'path' ? 'path' : 'query', parameter.name]);
      return { req, check, management: entry.side === 'management' };
    });
    await runFamily('documented-parameters', cases);
  });

  it('unknown routes and methods', async () => {
    const methods = fc.oneof(
      { weight: 12, arbitrary: pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']) },
      { weight: 3, arbitrary: pick(['PROPFIND', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'SEARCH', 'REPORT', 'PURGE', 'TRACE', 'LINK', 'UNLINK', 'QUERY']) },
    );
    const someSegments = fc.array(segments([randomUUID()]), { maxLength: 5 });
    const paths = fc.oneof(
      someSegments.map((parts) => `/${parts.join('/')}`),
      fc
        .tuple(
          pick([
            '/v2/user',
            '/v2',
            '/v1/user',
            '/v2/users',
            '/V2/USER',
            '/v2/user/resolve',
            '/v2/user/undo_delete',
            `/v2/user/${randomUUID()}/insurance`,
            '/docs',
            '/v2/user//',
          ]),
          someSegments,
        )
        .map(([prefix, parts]) => (parts.length ? `${prefix}/${parts.join('/')}` : prefix)),
      pick(['/', '//', '/..', '/%2e%2e/', '/v2/user/../../etc/passwd', '/v2/user?#', '/?', '/v2/user#frag', '/.env', '/v2/user/%2F..%2F']),
    );
    const cases = fc
      .tuple(methods, paths, queryStrings(['offset', 'user_id', 'is_primary']), fc.option(bodies(someUserBodies(), USER_FIELDS), { freq: 3 }), fc.boolean())
      .map(([method, path, query, body, withKey]): Case => {
        const c: Case = body ? withBody(method, `${path}${query}`, body, false) : { req: { method, path: `${path}${query}`, headers: headersFor() } };
        if (!withKey) delete c.req.headers['x-service-api-key'];
        return c;
      });
    await runFamily('unknown-routes', cases);
  });

  it('auth: random and malformed x-service-api-key headers', async () => {
    const other = await createTenant(stack.db);
    const key = tenant.apiKey;
    const keys = fc.oneof(
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '',
          ' ',
          'null',
          'undefined',
          'Bearer x',
          'sk_',
          'sk_us_',
          'sk_eu_x',
          'mk_',
          other.managementKey,
          tenant.managementKey,
          key,
          `Bearer ${key}`,
        ),
      },
      { weight: 3, arbitrary: fc.string({ maxLength: 80 }).map(headerSafe) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }).map(headerSafe) },
      { weight: 2, arbitrary: fc.string({ maxLength: 40 }).map((s) => `sk_us_${headerSafe(s)}`) },
      {
        weight: 4,
        arbitrary: fc.tuple(fc.nat(), fc.constantFrom('flip', 'cut', 'append', 'upper', 'spaces', 'twice')).map(([n, how]) => {
          const at = n % key.length;
          if (how === 'flip') return `${key.slice(0, at)}${key[at] === 'a' ? 'b' : 'a'}${key.slice(at + 1)}`;
          if (how === 'cut') return key.slice(0, at);
          if (how === 'append') return `${key}${String.fromCharCode(33 + (n % 94))}`;
          if (how === 'upper') return key.toUpperCase();
          if (how === 'spaces') return `  ${key}\t`;
          return `${key}, ${key}`;
        }),
      },
      // Long, but under Node's 16 KiB header limit (beyond it: the HTTP-level family).
      { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((length) => 'k'.repeat(length)) },
    );
    const headerSets = fc.oneof(
      { weight: 6, arbitrary: keys.map((value): Record<string, string | string[]> => ({ 'x-service-api-key': value })) },
      { weight: 1, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.tuple(keys, keys).map(([a, b]): Record<string, string | string[]> => ({ 'x-service-api-key': [a, b] })) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(pick(['X-Service-Api-Key', 'x-vital-api-key', 'authorization', 'x-management-key', 'x-service-api-keys']), keys)
          .map(([name, value]): Record<string, string | string[]> => ({ [name]: value })),
      },
    );
    const someUser = users[1].user_id;
    const routes: Array<{ method: string; path: string; body?: unknown }> = [
      { method: 'GET', path: '/v2/user' },
      { method: 'GET', path: `/v2/user/${someUser}` },
      { method: 'GET', path: `/v2/user/resolve/${encode(users[1].client_user_id)}` },
      { method: 'POST', path: '/v2/user', body: { client_user_id: `fuzz-auth-${randomUUID()}` } },
      { method: 'PATCH', path: `/v2/user/${someUser}`, body: {} },
      { method: 'DELETE', path: `/v2/user/${randomUUID()}` },
      { method: 'POST', path: `/v2/user/undo_delete?user_id=${randomUUID()}` },
      { method: 'POST', path: `/v2/user/${someUser}/insurance`, body: validInsurance() },
      { method: 'GET', path: `/v2/user/${someUser}/insurance/latest` },
      { method: 'GET', path: '/v2/nowhere' },
    ];
    const cases = fc.tuple(pick(routes), headerSets).map(([route, headers]): Case => {
      const req: RawRequest = { method: route.method, path: route.path, headers: { ...headers } };
      if (route.body !== undefined) {
        req.headers['content-type'] = 'application/json';
        req.body = JSON.stringify(route.body);
      }
      return { req };
    });
    await runFamily('auth', cases);
  });
  it('HTTP-level: undecodable paths, parameters over the router limit, unknown method tokens, oversized headers', async () => {
    const id = users[2].user_id;
    const templates: Array<{ method: string; path: (segment: string) => string; body?: unknown }> = [
      { method: 'GET', path: (segment) => `/v2/user/${segment}` },
      { method: 'GET', path: (segment) => `/v2/user/resolve/${segment}` },
      { method: 'PATCH', path: (segment) => `/v2/user/${segment}`, body: { fallback_time_zone: 'UTC' } },
      { method: 'DELETE', path: (segment) => `/v2/user/${segment}` },
      { method: 'POST', path: (segment) => `/v2/user/${segment}/insurance`, body: validInsurance() },
      { method: 'GET', path: (segment) => `/v2/user/${segment}/insurance/latest` },
      { method: 'GET', path: (segment) => `/${segment}` },
      { method: 'POST', path: (segment) => `/v2/${segment}/user`, body: {} },
    ];
    const json = (method: string, path: string, body?: unknown): Case =>
      body === undefined
        ? { req: { method, path, headers: headersFor() } }
        : withBody(method, path, { body: JSON.stringify(body), contentType: 'application/json' });
    const cases = fc.oneof(
      fc.tuple(pick(templates), unroutableSegments).map(([t, segment]) => json(t.method, t.path(segment), t.body)),
      fc
        .tuple(pick(['FOO', 'BREW', 'X-CUSTOM', 'GETS', 'POSTT']), pick(['/', '/v2/user', `/v2/user/${id}`, '/v2/nowhere']))
        .map(([method, path]) => json(method, path)),
      fc
        .tuple(pick(['x-service-api-key', 'x-filler', 'cookie']), fc.integer({ min: 16_500, max: 40_000 }), pick(['/v2/user', `/v2/user/${id}`]))
        .map(([name, length, path]): Case => ({ req: { method: 'GET', path, headers: { ...headersFor(), [name]: 'k'.repeat(length) } } })),
    );
    await runFamily('http-level', cases);
  });
});
