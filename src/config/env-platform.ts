import { z } from 'zod';
import {
  boolFlag,
  doc,
  duration,
  durationList,
  isKey,
  keyList,
  OPT_IN_WORKER_ROLES,
  port,
  rateBudget,
  trustProxy,
  wholeNumber,
  WORKER_ROLES,
} from './env-values';

/** The environment variables of the platform's: processes and ports, Postgres and Redis, Temporal, keys, API requests and rate limits, logs, metrics and traces, events and webhooks, retention and reconcilers (the shape ./environment.ts joins). */
export const platformEnv = {
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .meta(doc('processes', 'Production turns on the codec key, refuses private webhook URLs and needs the prebuilt workflow bundle.')),
  DATABASE_URL: z
    .string()
    .url()
    .default('postgres://postgres@127.0.0.1:5432/labflow')
    .meta(doc('storage', "Postgres of labflow's own tables (tests: `…/labflow_test`).")),
  DATABASE_POOL_MAX: wholeNumber(2, 500)
    .default(20)
    .meta(
      doc(
        'storage',
        "Postgres connections one process opens at most. Every API replica, worker and the management API opens its own, and a Temporal server on the same Postgres opens its pools (`scripts/temporal-server.sh`: at most 60). Together they must stay under Postgres's `max_connections` (100 by default).",
      ),
    ),
  DATABASE_SOCKET: z
    .string()
    .trim()
    .default('auto')
    .refine((value) => value === 'auto' || value === 'off' || value.startsWith('/'), { message: 'auto, off, or the absolute directory of the socket' })
    .meta(
      doc(
        'storage',
        "How labflow's processes reach the Postgres of DATABASE_URL: `auto` over Postgres's Unix socket when DATABASE_URL names this machine (127.0.0.1, localhost, ::1) and the socket is in /var/run/postgresql or /tmp, else as DATABASE_URL says (TCP: a Postgres in another container or host); `off` always as DATABASE_URL says; a directory: the socket there. A socket spares each statement the loopback TCP stack (the HL7 listener's profile showed it).",
      ),
    ),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379/0').meta(doc('storage', 'Redis of the BullMQ queues and the availability cache (tests: db 1).')),
  // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS and API key: Temporal's own connection settings,
  // read and checked by ./temporal-connection.ts (documented there, TEMPORAL_CONNECTION_VARIABLES).
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('labflow').meta(doc('temporal', 'Task queue of the order worker; the API starts workflows on it.')),
  TEMPORAL_UI_URL: z
    .string()
    .url()
    .default('http://127.0.0.1:8233')
    .meta(doc('temporal', "The Temporal UI, for links such as `labflow order story`'s. The scripts set it to their server's UI.")),
  TEMPORAL_MAX_CACHED_WORKFLOWS: z.coerce
    .number()
    .int()
    .min(0)
    .default(1000)
    .meta(
      doc(
        'temporal',
        "The order worker's sticky cache: workflows kept in memory between their tasks. The others are replayed from their history when their next task comes. See [Many open workflows](temporal.md#many-open-workflows).",
      ),
    ),
  TEMPORAL_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce
    .number()
    .int()
    .min(2)
    .default(40)
    .meta(doc('temporal', "The order worker's workflow task slots (the SDK's default, named so it can be tuned).")),
  TEMPORAL_MAX_CONCURRENT_ACTIVITIES: z.coerce
    .number()
    .int()
    .min(1)
    .default(100)
    .meta(doc('temporal', "The order worker's activity slots (the SDK's default, named so it can be tuned).")),
  WORKFLOW_BUNDLE: z
    .string()
    .min(1)
    .optional()
    .meta(
      doc(
        'temporal',
        "Outside production: a file of the workflows already bundled (`npm run build:workflows` writes `dist/workflow-bundle.js`) that the worker process loads instead of bundling `workflows/` at every start. The fault runs and the tests hand one to the workers they start. Production workers always load the build's.",
        'bundled at start',
      ),
    ),
  API_HOST: z.string().default('127.0.0.1').meta(doc('processes', 'Bind address of the API and the management API.')),
  API_PORT: port.default(8000).meta(doc('processes', 'Port of the API.')),
  MANAGEMENT_PORT: port.default(8001).meta(doc('processes', 'Port of the management API.')),
  PUBLIC_API_URL: z
    .string()
    .url()
    .optional()
    .meta(
      doc(
        'processes',
        "The API's base URL as clients reach it. Requisition links, portal links, Link's `link_web_url` and the OAuth callback a provider returns to (`/v2/link/connect/{provider}`) are built on it.",
        '`http://API_HOST:API_PORT`',
      ),
    ),
  PHI_ENCRYPTION_KEY: z
    .string()
    .refine(isKey, { message: 'must be 32 random bytes in base64 (openssl rand -base64 32)' })
    .meta(doc('keys', '32 random bytes in base64 (`openssl rand -base64 32`): the AES-256-GCM key of PHI at rest. Losing it makes stored PHI unreadable.')),
  PHI_ENCRYPTION_PREVIOUS_KEYS: keyList.meta(
    doc(
      'keys',
      'Earlier PHI keys, comma-separated, kept after a rotation. They only open what they sealed (and Temporal payloads sealed with keys derived from them). They never seal or sign. See [Rotating the PHI key](operations.md#rotating-the-phi-key).',
    ),
  ),
  TEMPORAL_PAYLOAD_KEY: z
    .string()
    .refine(isKey, { message: 'must be 32 random bytes in base64' })
    .optional()
    .meta(doc('keys', '32 random bytes in base64 that encrypt Temporal payloads. Every process needs the same one.', 'derived from `PHI_ENCRYPTION_KEY`')),
  TEMPORAL_PAYLOAD_PREVIOUS_KEYS: keyList.meta(doc('keys', 'Earlier `TEMPORAL_PAYLOAD_KEY`s, comma-separated, to open the history payloads they sealed.')),
  CODEC_CORS_ORIGINS: z
    .string()
    .default('http://127.0.0.1:8233,http://localhost:8233')
    .meta(doc('keys', "Browser origins (the Temporal UI) allowed to call the management API's `/codec`.")),
  CODEC_REQUIRE_KEY: boolFlag
    .optional()
    .meta(doc('keys', 'Require a management key (`Authorization: Bearer`) on `/codec`.', 'on in production, off otherwise')),
  USER_DELETION_GRACE: duration.default('7d').meta(doc('requests', 'How long a deleted user can still be restored (Junction: 7 days; tests: `3s`).')),
  API_KEY_CACHE_TTL: duration
    .default('60s')
    .meta(
      doc(
        'requests',
        "How long the API keeps a team API key it verified in memory. A revocation reaches every replica at once through Postgres NOTIFY; while a replica's LISTEN connection is down it caches nothing. `0s`: every request looks its key up.",
      ),
    ),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1_048_576)
    .meta(doc('requests', 'Largest JSON body accepted; larger ones answer 413. Orders carrying insurance card images or a signature may need more.')),
  TRUST_PROXY: trustProxy
    .default(false)
    .meta(
      doc(
        'requests',
        "Which proxies in front of the HTTP apps to believe about the client address (`X-Forwarded-For`): `false` (none: the address is the TCP peer), `true` (any), a number of hops, or comma-separated proxy addresses or CIDR ranges. The per-address rate limits count by that address: behind a load balancer set it, or every client shares the balancer's budget. See [Rate limits](rate-limits.md).",
      ),
    ),
  RATE_LIMIT_REDIS_URL: z
    .string()
    .url()
    .optional()
    .meta(
      doc(
        'requests',
        'Redis of the rate limits, shared by every API and management replica. While it does not answer, requests pass uncounted (fail open).',
        'the same as `REDIS_URL`',
      ),
    ),
  RATE_LIMIT_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,100}$/)
    .default('labflow-rate')
    .meta(doc('requests', 'Prefix of the rate-limit counters in Redis; replicas with the same Redis and prefix share one budget (tests: one per stack).')),
  RATE_LIMIT_API_KEY: rateBudget
    .default('1200000/1m')
    .meta(
      doc(
        'requests',
        'Main API: requests per team API key, as `<count>/<window>` (a fixed window from the first request), or `off`. The default is above what the benchmarks send with one key (up to about 10,000 a second); set what one team may use of your deployment, for example `6000/1m`. See [Rate limits](rate-limits.md).',
      ),
    ),
  RATE_LIMIT_MANAGEMENT_KEY: rateBudget.default('60000/1m').meta(doc('requests', 'Management API: requests per management key (`<count>/<window>` or `off`).')),
  RATE_LIMIT_INVALID_KEYS: rateBudget
    .default('20/10m')
    .meta(
      doc(
        'requests',
        "Both APIs: refused keys (401 for a key with that API's own prefix) per client address; past it, every keyed request from the address answers 429 until the window closes.",
      ),
    ),
  RATE_LIMIT_PORTAL: rateBudget
    .default('600/1m')
    .meta(doc('requests', 'Patient portal (`/portal`, `/p/<code>`) and webhook portal (`/webhook-portal`): requests per client address.')),
  RATE_LIMIT_PORTAL_FAILURES: rateBudget
    .default('20/10m')
    .meta(
      doc(
        'requests',
        'Patient portal: unknown codes, launch tokens and sessions (401, 404) per client address; past it, the portal answers 429 to the address until the window closes.',
      ),
    ),
  RATE_LIMIT_LINK: rateBudget
    .default('1200/1m')
    .meta(doc('requests', 'Link (the link-token routes under `/v2/link`, the hosted `/link` pages, OAuth callbacks): requests per client address.')),
  RATE_LIMIT_LINK_FAILURES: rateBudget
    .default('20/10m')
    .meta(
      doc(
        'requests',
        'Link: refused link tokens and OAuth states (401, 404) per client address; past it, Link answers 429 to the address until the window closes.',
      ),
    ),
  RATE_LIMIT_PARTNER_WEBHOOKS: rateBudget
    .default('6000/1m')
    .meta(doc('requests', 'Partner webhooks (`/v3/webhooks/...`: courier, lab, appointment and data providers): requests per client address.')),
  RATE_LIMIT_PARTNER_WEBHOOK_FAILURES: rateBudget
    .default('20/10m')
    .meta(
      doc(
        'requests',
        'Partner webhooks: refused signatures (401, 404) per client address; past it, the webhooks answer 429 to the address until the window closes.',
      ),
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .optional()
    .meta(
      doc(
        'observability',
        'OTLP/HTTP collector base URL (e.g. `http://otel-collector:4318`); traces go to `<it>/v1/traces`. See [Traces](operations.md#traces).',
        'tracing off',
      ),
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .string()
    .url()
    .optional()
    .meta(doc('observability', 'The full traces URL, in place of `OTEL_EXPORTER_OTLP_ENDPOINT` for traces.')),
  OTEL_SERVICE_NAME: z
    .string()
    .min(1)
    .optional()
    .meta(doc('observability', "Service name of the process's spans.", '`labflow-api`, `labflow-management` or `labflow-worker`')),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace'])
    .default('info')
    .meta(doc('observability', "Level of every process's log: API, management API, worker, and Temporal's worker logs routed into it (tests: `warn`).")),
  LOG_FORMAT: z
    .enum(['json', 'pretty'])
    .default('json')
    .meta(doc('observability', '`json`: one JSON object a line on stdout. `pretty`: human-readable lines (pino-pretty; `npm run up` sets it).')),
  LOG_REQUESTS: boolFlag
    .default(true)
    .meta(
      doc(
        'observability',
        'One `request completed` line per request in the API and management API: method, path (credentials redacted), client, status code, `responseTime` in ms (tests: off).',
      ),
    ),
  METRICS_ENABLED: boolFlag.default(true).meta(doc('observability', '`GET /metrics` (Prometheus) on every process, and the HTTP request metrics behind it.')),
  METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .meta(
      doc('observability', 'When set, `GET /metrics` answers 401 without `Authorization: Bearer <METRICS_TOKEN>` (16 characters or more).', 'no token asked'),
    ),
  WORKER_HEALTH_PORT: port
    .default(8002)
    .meta(
      doc('processes', "The worker's own HTTP port, bound to `API_HOST`: `/health/live`, `/health/ready` and `/metrics` (`0`: any free port; tests: `0`)."),
    ),
  TEMPORAL_METRICS_PORT: port
    .default(0)
    .meta(doc('observability', "Loopback port of the Temporal SDK's Prometheus exporter, merged into the worker's `/metrics` (`0`: any free port).")),
  WEBHOOK_RETRY_SCHEDULE: durationList
    .default('0s,5s,5m,30m,2h,5h,10h,10h')
    .meta(doc('events', "Delays before each retry after a failed webhook attempt (Junction's schedule).")),
  WEBHOOK_DELIVERY_TIMEOUT: duration.default('15s').meta(doc('events', 'A webhook attempt counts as successful only with a 2xx within this time.')),
  WEBHOOK_DISABLE_AFTER: duration.default('5d').meta(doc('events', 'An endpoint failing without a single success for this long is disabled.')),
  ALLOW_PRIVATE_WEBHOOK_URLS: boolFlag
    .optional()
    .meta(
      doc(
        'events',
        'Accept webhook URLs and event-destination (RabbitMQ) URIs aimed at localhost or loopback, private or link-local addresses.',
        'allowed outside production, refused in production',
      ),
    ),
  WEBHOOK_CONCURRENCY: wholeNumber(1, 1000).default(50).meta(doc('events', 'Parallel webhook and destination deliveries per worker process.')),
  EVENTS_QUEUE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}$/)
    .default('labflow-events')
    .meta(doc('events', 'BullMQ queue of event deliveries (tests use one per stack).')),
  EVENTS_RELAY_POLL_INTERVAL: duration.default('1s').meta(doc('events', 'The relay wakes on Postgres NOTIFY; this poll is the fallback.')),
  EVENTS_SWEEP_INTERVAL: duration.default('30s').meta(doc('events', 'How often the relay looks for pending deliveries whose BullMQ job went missing.')),
  EVENTS_LOST_JOB_GRACE: duration.default('2m').meta(doc('events', 'A pending delivery this late is enqueued again (harmless when its job still exists).')),
  EVENTS_JOB_LOCK: duration
    .default('30s')
    .meta(doc('events', 'BullMQ job lock: a delivery job held by a dead worker is picked up again after about this long.')),
  EVENT_RETENTION: duration
    .default('90d')
    .meta(
      doc(
        'reconcilers',
        'How long relayed events (with their deliveries and attempts) and continuous-query evaluations are kept. The newest event of each order is always kept.',
      ),
    ),
  HEALTH_DATA_RETENTION: duration
    .default('0s')
    .meta(
      doc(
        'reconcilers',
        "Health-data samples: the retention sweep drops whole months older than this (`0s`: kept forever). Each sweep also makes the next three months' partitions.",
      ),
    ),
  RETENTION_SWEEP_INTERVAL: duration
    .default('1h')
    .meta(
      doc(
        'reconcilers',
        "How often the worker role `retention` runs its sweep (`0s` turns it off): expired events, idempotency keys, partner webhook event ids (30 days) and link tokens, ended Link Migration operations' users, and health-data months past `HEALTH_DATA_RETENTION`.",
      ),
    ),
  RECONCILER_INTERVAL: duration
    .default('10s')
    .meta(
      doc(
        'reconcilers',
        "How often the worker's reconcilers run a pass: over order workflows that did not start, closed, vanished or stalled, and over connections whose workflow closed or vanished (`0s` turns them off).",
      ),
    ),
  RECONCILER_GRACE: duration
    .default('5s')
    .meta(
      doc(
        'reconcilers',
        'An order row this old without a workflow start is started by the reconciler. A connection row younger than this is not examined yet.',
      ),
    ),
  RECONCILER_STALL_HORIZON: duration
    .default('15m')
    .meta(
      doc(
        'reconcilers',
        "A running order workflow that makes no progress this long while work is due (a task failing attempt after attempt, messages waiting with nothing in flight) is raised as stalled. Also how long a closed order or connection workflow of another task queue is left to that queue's reconciler.",
      ),
    ),
  RECONCILER_BATCH: wholeNumber(1, 10_000)
    .default(100)
    .meta(
      doc('reconcilers', 'Non-terminal orders, and connections, the reconcilers examine per pass. A cursor carries over, so each is examined once per cycle.'),
    ),
  RECONCILER_MAX_HEALS: wholeNumber(0, 1000)
    .default(3)
    .meta(
      doc(
        'reconcilers',
        'New runs the reconciler starts for one order whose workflow closed or vanished before the order ended. Past that it only raises the order.',
      ),
    ),
  IDEMPOTENCY_KEY_TTL: duration.default('24h').meta(doc('requests', 'How long an `X-Idempotency-Key` answer is kept and replayed.')),
  WORKER_ROLES: z
    .string()
    .refine((value) => value.split(',').every((role) => (WORKER_ROLES as readonly string[]).includes(role.trim())), {
      message: `must be a comma-separated subset of ${WORKER_ROLES.join(',')}`,
    })
    .default(WORKER_ROLES.filter((role) => !OPT_IN_WORKER_ROLES.includes(role)).join(','))
    .meta(
      doc(
        'processes',
        'What the worker process runs, comma-separated. `temporal`: the Temporal worker of the order task queue (orders, appointments, connections, Link bulk operations) and the reconcilers. `relay`: the outbox relay. `delivery`: webhook and RabbitMQ deliveries. `sandbox`: sandbox partner callbacks to `PUBLIC_API_URL`. `retention`: the retention sweep, one worker at a time. `lab-reports`: lab report parsing on `LAB_REPORT_TASK_QUEUE`, so OCR machines scale apart. `continuous-queries`: continuous-query evaluations, any number of workers at once. `hl7` (only when named): the MLLP listener labs send results to, on `HL7_LISTENER_PORT`, which also hands each message to its order after the ACK. `hl7-listener` and `hl7-handoff` (only when named): the same split in two processes, run both instead of `hl7` — the listener only stores, commits and ACKs, the hand-off claims what it stored (every `HL7_HANDOFF_POLL`) and hands it to the orders, so the signals do not take the listener’s CPU. `sandbox-hl7-lab` (only when named): the sandbox lab’s HL7 interface on `SANDBOX_HL7_LAB_PORT`.',
      ),
    ),
};
