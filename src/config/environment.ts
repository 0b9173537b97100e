import { msToNumber } from '@temporalio/common/lib/time';
import { z } from 'zod';
import { LAB_REPORT_TASK_QUEUE } from '../../workflows/contract/lab-reports';

/**
 * The environment variables labflow reads and how each is validated (config.ts turns them into
 * the typed LabflowConfig once at start-up). Split from config.ts so each file stays one purpose.
 */

const duration = z.string().refine(
  (value) => {
    try {
      return msToNumber(value as Parameters<typeof msToNumber>[0]) >= 0;
    } catch {
      return false;
    }
  },
  { message: 'must be a duration such as "500ms", "30s", "5m", "7d"' },
);

const port = z.coerce.number().int().min(0).max(65535);

const boolFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** A comma-separated list of durations, e.g. "0s,5s,5m". */
const durationList = z
  .string()
  .refine((value) => value.split(',').every((part) => duration.safeParse(part.trim()).success), {
    message: 'must be a comma-separated list of durations such as "0s,5s,5m,30m"',
  });

/** Reminder offsets: a list of durations, or `off` (or nothing) for none of that kind. */
const offsetList = z
  .string()
  .trim()
  .refine((value) => value === '' || value === 'off' || durationList.safeParse(value).success, {
    message: 'must be a comma-separated list of durations such as "24h,72h,7d", or "off"',
  })
  .transform((value) => (value === '' || value === 'off' ? [] : value.split(',').map((part) => part.trim())));

/** 32 random bytes in base64 (a key). */
const isKey = (value: string) => Buffer.from(value, 'base64').length === 32;

/** Keys, comma-separated (each as isKey); nothing for none. */
const keyList = z
  .string()
  .trim()
  .refine((value) => value === '' || value.split(',').every((part) => isKey(part.trim())), {
    message: 'must be a comma-separated list of keys, each 32 random bytes in base64',
  })
  .transform((value) => (value === '' ? [] : value.split(',').map((part) => Buffer.from(part.trim(), 'base64'))))
  .default([]);

export const toMs = (value: string) => msToNumber(value as Parameters<typeof msToNumber>[0]);

/**
 * A rate-limit budget: `<count>/<window>` (`600/1m`: 600 in a fixed window of one minute, which
 * opens at the first request and closes a minute later), the window in whole seconds; `off` for none.
 */
const rateBudget = z
  .string()
  .trim()
  .refine(
    (value) => {
      if (value === 'off') return true;
      const match = /^(\d+)\/(.+)$/.exec(value);
      return match !== null && Number(match[1]) >= 1 && duration.safeParse(match[2]).success && toMs(match[2]) >= 1000 && toMs(match[2]) % 1000 === 0;
    },
    { message: 'must be <count>/<window> such as "600/1m" (count ≥ 1, window in whole seconds, at least 1s), or "off"' },
  );

/** TRUST_PROXY: `false`, `true`, a number of proxy hops, or comma-separated proxy addresses or CIDR ranges. */
const trustProxy = z
  .string()
  .trim()
  .transform((value): boolean | number | string[] => {
    if (value === 'true' || value === 'false') return value === 'true';
    if (/^\d+$/.test(value)) return Number(value);
    return value.split(',').map((part) => part.trim()).filter(Boolean);
  });

/** What a worker process runs: Temporal workflows/activities, the outbox relay, webhook delivery, sandbox partner callbacks. */
export const WORKER_ROLES = ['temporal', 'relay', 'delivery', 'sandbox', 'retention', 'lab-reports', 'continuous-queries', 'hl7', 'sandbox-hl7-lab'] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];
/** Roles a worker runs only when WORKER_ROLES names them: each listens on a port of its own. */
const OPT_IN_WORKER_ROLES: readonly WorkerRole[] = ['hl7', 'sandbox-hl7-lab'];

/**
 * The sections of docs/configuration.md, in its order. `npm run docs:config`
 * (scripts/docs-config.ts) writes that file from the descriptions below; a variable without one
 * stops it, and one without a group is listed under "Other".
 */
export const CONFIG_GROUPS = {
  processes: 'Processes, ports and URLs',
  storage: 'Postgres and Redis',
  keys: 'Keys and encryption',
  requests: 'API requests and users',
  temporal: 'Temporal',
  observability: 'Logs, metrics and traces',
  events: 'Events and webhooks',
  reconcilers: 'Retention and reconcilers',
  orders: 'Orders',
  appointments: 'Appointments',
  sandbox: 'Sandbox',
  reminders: 'Notifications and reminders',
  portal: 'Patient portal',
  labReports: 'Lab reports',
  healthData: 'Health data',
  connections: 'Connections',
  link: 'Link and providers',
  hl7: 'HL7 labs',
} as const;
type ConfigGroup = keyof typeof CONFIG_GROUPS;

/** What docs/configuration.md says of a variable. `unset`: what an optional one does without a value. */
type ConfigDoc = {
  group: ConfigGroup;
  description: string;
  unset?: string;
};

const doc = (group: ConfigGroup, description: string, unset?: string): ConfigDoc => (unset === undefined ? { group, description } : { group, description, unset });

export const envSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .meta(doc('processes', 'Production turns on the codec key, refuses private webhook URLs and needs the prebuilt workflow bundle.')),
  DATABASE_URL: z
    .string()
    .url()
    .default('postgres://postgres@127.0.0.1:5432/labflow')
    .meta(doc('storage', "Postgres of labflow's own tables (tests: `…/labflow_test`).")),
  DATABASE_POOL_MAX: z
    .coerce.number()
    .int()
    .min(2)
    .max(500)
    .default(20)
    .meta(
      doc(
        'storage',
        "Postgres connections one process opens at most. Every API replica, worker and the management API opens its own, and a Temporal server on the same Postgres opens its pools (`scripts/temporal-server.sh`: at most 60). Together they must stay under Postgres's `max_connections` (100 by default).",
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
  TEMPORAL_MAX_CACHED_WORKFLOWS: z
    .coerce.number()
    .int()
    .min(0)
    .default(1000)
    .meta(
      doc(
        'temporal',
        "The order worker's sticky cache: workflows kept in memory between their tasks. The others are replayed from their history when their next task comes. See [Many open workflows](temporal.md#many-open-workflows).",
      ),
    ),
  TEMPORAL_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).default(40).meta(doc('temporal', "The order worker's workflow task slots (the SDK's default, named so it can be tuned).")),
  TEMPORAL_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).default(100).meta(doc('temporal', "The order worker's activity slots (the SDK's default, named so it can be tuned).")),
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
  CODEC_CORS_ORIGINS: z.string().default('http://127.0.0.1:8233,http://localhost:8233').meta(doc('keys', "Browser origins (the Temporal UI) allowed to call the management API's `/codec`.")),
  CODEC_REQUIRE_KEY: boolFlag.optional().meta(doc('keys', 'Require a management key (`Authorization: Bearer`) on `/codec`.', 'on in production, off otherwise')),
  USER_DELETION_GRACE: duration.default('7d').meta(doc('requests', 'How long a deleted user can still be restored (Junction: 7 days; tests: `3s`).')),
  API_KEY_CACHE_TTL: duration
    .default('60s')
    .meta(
      doc(
        'requests',
        "How long the API keeps a team API key it verified in memory. A revocation reaches every replica at once through Postgres NOTIFY; while a replica's LISTEN connection is down it caches nothing. `0s`: every request looks its key up.",
      ),
    ),
  BODY_LIMIT_BYTES: z
    .coerce.number()
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
    .meta(doc('requests', 'Redis of the rate limits, shared by every API and management replica. While it does not answer, requests pass uncounted (fail open).', 'the same as `REDIS_URL`')),
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
    .meta(doc('requests', "Both APIs: refused keys (401 for a key with that API's own prefix) per client address; past it, every keyed request from the address answers 429 until the window closes.")),
  RATE_LIMIT_PORTAL: rateBudget.default('600/1m').meta(doc('requests', 'Patient portal (`/portal`, `/p/<code>`): requests per client address.')),
  RATE_LIMIT_PORTAL_FAILURES: rateBudget
    .default('20/10m')
    .meta(doc('requests', 'Patient portal: unknown codes, launch tokens and sessions (401, 404) per client address; past it, the portal answers 429 to the address until the window closes.')),
  RATE_LIMIT_LINK: rateBudget.default('1200/1m').meta(doc('requests', 'Link (the link-token routes under `/v2/link`, the hosted `/link` pages, OAuth callbacks): requests per client address.')),
  RATE_LIMIT_LINK_FAILURES: rateBudget
    .default('20/10m')
    .meta(doc('requests', 'Link: refused link tokens and OAuth states (401, 404) per client address; past it, Link answers 429 to the address until the window closes.')),
  RATE_LIMIT_PARTNER_WEBHOOKS: rateBudget
    .default('6000/1m')
    .meta(doc('requests', 'Partner webhooks (`/v3/webhooks/...`: courier, lab, appointment and data providers): requests per client address.')),
  RATE_LIMIT_PARTNER_WEBHOOK_FAILURES: rateBudget
    .default('20/10m')
    .meta(doc('requests', 'Partner webhooks: refused signatures (401, 404) per client address; past it, the webhooks answer 429 to the address until the window closes.')),
  HEALTH_DATA_BODY_LIMIT_BYTES: z
    .coerce.number()
    .int()
    .positive()
    .default(64 * 1_048_576)
    .meta(doc('healthData', 'Body limit of health-data ingestion (`POST /v2/timeseries/…`, `POST /v2/summary/…`: tens of thousands of samples per request).')),
  HEALTH_DATA_PAGE_SIZE: z.coerce.number().int().min(1).max(100_000).default(10_000).meta(doc('healthData', 'Samples per page of a grouped timeseries read (`next_cursor` pages on).')),
  HEALTH_DATA_EVENT_WINDOW: duration
    .default('5s')
    .meta(
      doc(
        'healthData',
        "Timeseries events gather the samples of one user, resource, provider and source type for this long after the first (across requests), then go out as one event. `0s`: each request's samples go out at the next relay pass.",
      ),
    ),
  CONTINUOUS_QUERY_DEBOUNCE: duration
    .default('10s')
    .meta(doc('healthData', "Continuous queries: how long after a user's data changed their queries are evaluated. Writes meanwhile join the same evaluation.")),
  CONTINUOUS_QUERY_POLL_INTERVAL: duration.default('1s').meta(doc('healthData', 'How often the worker role `continuous-queries` looks for due evaluations.')),
  CONTINUOUS_QUERY_LEASE: duration.default('5m').meta(doc('healthData', 'An evaluation not finished this long after it started (its worker died) is started again.')),
  HEALTH_DATA_EVENT_MAX_SAMPLES: z.coerce.number().int().min(1).default(10_000).meta(doc('healthData', 'Samples of one timeseries event at most; more go into further events.')),
  HEALTH_DATA_EVENT_MAX_BYTES: z
    .coerce.number()
    .int()
    .min(1024)
    .default(256 * 1024)
    .meta(doc('healthData', 'Bytes of sample JSON in one timeseries event at most (webhook payloads stay bounded).')),
  CONNECTION_BACKFILL_DAYS: z.coerce.number().int().min(0).max(365).default(30).meta(doc('connections', "Days of history a new connection backfills (Junction's demo connections: 30).")),
  CONNECTION_BACKFILL_CHUNK: duration.default('1d').meta(doc('connections', 'History one backfill step syncs. Each step is one activity, so a killed worker repeats one step.')),
  CONNECTION_SYNC_INTERVAL: duration.default('15m').meta(doc('connections', "Time between a connection's incremental syncs (`POST /v2/user/refresh/{user_id}` syncs at once).")),
  CONNECTION_SYNCS_PER_RUN: z
    .coerce.number()
    .int()
    .min(1)
    .max(1000)
    .default(96)
    .meta(doc('connections', 'Incremental syncs per workflow run before it continues as new, which keeps its history short.')),
  CONNECTION_SYNC_INTERVALS: z
    .string()
    .trim()
    .refine((value) => value === '' || value.split(',').every((pair) => /^[a-z0-9_]+=/.test(pair.trim()) && duration.safeParse(pair.trim().split('=')[1]).success), {
      message: 'must be a comma-separated list of provider=duration, such as "whoop_v2=2h,oura=30m"',
    })
    .default('whoop_v2=2h')
    .meta(
      doc(
        'connections',
        'Sync intervals of particular providers as `provider=duration` pairs (`whoop_v2=2h,oura=30m`), in place of `CONNECTION_SYNC_INTERVAL`, for connections made from then on. A running connection keeps its interval until it is connected again. WHOOP allows an application 10,000 requests a day and a sync costs four: every 2 h is about 48 a member a day.',
      ),
    ),
  CONNECTION_SYNC_TIMEOUT: duration.default('2m').meta(doc('connections', 'How long one sync step may run before Temporal gives it to another worker.')),
  CONNECTION_SYNC_HEARTBEAT_TIMEOUT: duration
    .default('30s')
    .meta(
      doc(
        'connections',
        'A sync step heartbeats while it runs. One whose worker sent no heartbeat this long (the worker died) runs again elsewhere, without waiting out `CONNECTION_SYNC_TIMEOUT`.',
      ),
    ),
  CONNECTION_SYNC_RETRY_INTERVAL: duration.default('5s').meta(doc('connections', 'First retry interval of a failed sync step (doubling, at most 10 minutes).')),
  LINK_BULK_PULL_BATCH: z
    .coerce.number()
    .int()
    .min(1)
    .max(1000)
    .default(10)
    .meta(doc('link', "Link Migration's bulk historical pull: connections pulled per step (10 every 20 s is Junction's pace for Oura, 150 per 5 minutes).")),
  LINK_BULK_PULL_INTERVAL: duration.default('20s').meta(doc('link', "Link Migration's bulk historical pull: the pause between steps, to spare the provider's rate limit.")),
  LINK_BULK_HEARTBEAT_TIMEOUT: duration
    .default('30s')
    .meta(doc('link', "Link Migration: a bulk operation's step heartbeats while it runs; one whose worker sent none this long (the worker died) runs again elsewhere.")),
  LINK_BULK_OP_RETENTION: duration
    .default('90d')
    .meta(
      doc(
        'link',
        "Link Migration: an ended bulk operation's users (a row each, with their outcome) are deleted by the retention sweep this long after it ended. The operation stays in `GET /v2/link/bulk_op` with its counts.",
      ),
    ),
  LINK_BULK_WAIT: duration
    .default('20s')
    .meta(doc('link', 'Link Migration: how long a bulk import or historical pull with `wait_for_completion` is waited for before the answer is 202 (Junction: 20 s).')),
  SANDBOX_SOURCE_ERRORS: z
    .string()
    .regex(/^([a-z_]+=[a-z_]+(,[a-z_]+=[a-z_]+)*)?$/, 'a comma-separated list of provider=error_type')
    .default('')
    .meta(
      doc(
        'sandbox',
        'Demo providers whose source refuses every sync with a connection error, as `provider=error_type` pairs (`fitbit=token_refresh_failed,oura=required_scopes_not_granted`). Shows `provider.connection.error` and a connection in `error` without a real source.',
      ),
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .optional()
    .meta(doc('observability', 'OTLP/HTTP collector base URL (e.g. `http://otel-collector:4318`); traces go to `<it>/v1/traces`. See [Traces](operations.md#traces).', 'tracing off')),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional().meta(doc('observability', 'The full traces URL, in place of `OTEL_EXPORTER_OTLP_ENDPOINT` for traces.')),
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
    .meta(doc('observability', 'When set, `GET /metrics` answers 401 without `Authorization: Bearer <METRICS_TOKEN>` (16 characters or more).', 'no token asked')),
  WORKER_HEALTH_PORT: port.default(8002).meta(doc('processes', "The worker's own HTTP port, bound to `API_HOST`: `/health/live`, `/health/ready` and `/metrics` (`0`: any free port; tests: `0`).")),
  TEMPORAL_METRICS_PORT: port.default(0).meta(doc('observability', "Loopback port of the Temporal SDK's Prometheus exporter, merged into the worker's `/metrics` (`0`: any free port).")),
  WEBHOOK_RETRY_SCHEDULE: durationList.default('0s,5s,5m,30m,2h,5h,10h,10h').meta(doc('events', "Delays before each retry after a failed webhook attempt (Junction's schedule).")),
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
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50).meta(doc('events', 'Parallel webhook and destination deliveries per worker process.')),
  EVENTS_QUEUE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}$/)
    .default('labflow-events')
    .meta(doc('events', 'BullMQ queue of event deliveries (tests use one per stack).')),
  EVENTS_RELAY_POLL_INTERVAL: duration.default('1s').meta(doc('events', 'The relay wakes on Postgres NOTIFY; this poll is the fallback.')),
  EVENTS_SWEEP_INTERVAL: duration.default('30s').meta(doc('events', 'How often the relay looks for pending deliveries whose BullMQ job went missing.')),
  EVENTS_LOST_JOB_GRACE: duration.default('2m').meta(doc('events', 'A pending delivery this late is enqueued again (harmless when its job still exists).')),
  EVENTS_JOB_LOCK: duration.default('30s').meta(doc('events', 'BullMQ job lock: a delivery job held by a dead worker is picked up again after about this long.')),
  EVENT_RETENTION: duration
    .default('90d')
    .meta(doc('reconcilers', 'How long relayed events (with their deliveries and attempts) and continuous-query evaluations are kept. The newest event of each order is always kept.')),
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
    .meta(doc('reconcilers', "How often the worker role `retention` runs its sweep (`0s` turns it off): expired events, idempotency keys and link tokens, ended Link Migration operations' users, and health-data months past `HEALTH_DATA_RETENTION`.")),
  ORDER_REGISTRATION_WINDOW: duration.default('60d').meta(doc('orders', 'How long a customer has to register a received kit before the order is cancelled.')),
  ORDER_SAMPLE_TO_LAB_WINDOW: duration.default('30d').meta(doc('orders', 'How long a kit may take from the customer to the lab before it counts as lost.')),
  SANDBOX_STEP_DELAY: duration.default('1s').meta(doc('sandbox', "Default pause between the steps of a sandbox order's simulation.")),
  PHYSICIAN_ENFORCEMENT_DATE: z.iso.date().default('2026-08-01').meta(doc('orders', 'From this date (YYYY-MM-DD), delegated lab accounts need a physician on the order.')),
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
    .meta(doc('reconcilers', 'An order row this old without a workflow start is started by the reconciler. A connection row younger than this is not examined yet.')),
  RECONCILER_STALL_HORIZON: duration
    .default('15m')
    .meta(
      doc(
        'reconcilers',
        "A running order workflow that makes no progress this long while work is due (a task failing attempt after attempt, messages waiting with nothing in flight) is raised as stalled. Also how long a closed order or connection workflow of another task queue is left to that queue's reconciler.",
      ),
    ),
  RECONCILER_BATCH: z
    .coerce.number()
    .int()
    .min(1)
    .max(10_000)
    .default(100)
    .meta(doc('reconcilers', 'Non-terminal orders, and connections, the reconcilers examine per pass. A cursor carries over, so each is examined once per cycle.')),
  RECONCILER_MAX_HEALS: z
    .coerce.number()
    .int()
    .min(0)
    .max(1000)
    .default(3)
    .meta(doc('reconcilers', 'New runs the reconciler starts for one order whose workflow closed or vanished before the order ended. Past that it only raises the order.')),
  IDEMPOTENCY_KEY_TTL: duration.default('24h').meta(doc('requests', 'How long an `X-Idempotency-Key` answer is kept and replayed.')),
  REQUISITION_LINK_TTL: duration.default('7d').meta(doc('orders', 'How long a `requisition_form_url` (a signed link, no API key needed) works after the order was read.')),
  PARTNER_WEBHOOK_SECRET: z
    .string()
    .min(16)
    .optional()
    .meta(
      doc(
        'orders',
        'HMAC secret of the courier, lab and appointment-provider webhooks (`POST /v3/webhooks/…`). See [Partner webhooks](orders-and-appointments.md#partner-webhooks).',
        'those webhooks refuse every call',
      ),
    ),
  SANDBOX_CALLBACKS: boolFlag
    .default(true)
    .meta(doc('sandbox', "Sandbox partners (courier, lab) call labflow's partner webhooks back for production-environment orders. Needs `PARTNER_WEBHOOK_SECRET`; sent by the worker role `sandbox`.")),
  SANDBOX_CALLBACKS_QUEUE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}$/)
    .default('labflow-sandbox-callbacks')
    .meta(doc('sandbox', 'BullMQ queue of sandbox partner callbacks (tests use one per stack).')),
  SANDBOX_COURIER_STEP_DELAY: duration.default('5s').meta(doc('sandbox', 'Sandbox courier: pause between its tracking updates (`out_for_delivery` … `delivered_to_lab`).')),
  SANDBOX_LAB_RESULT_DELAY: duration.default('15s').meta(doc('sandbox', 'Sandbox lab: how long after a sample is delivered it reports the order completed.')),
  HL7_LISTENER_PORT: port.default(2575).meta(doc('hl7', 'Port of the MLLP listener labs send HL7 results and order status messages to (worker role `hl7`).')),
  HL7_LISTENER_HOST: z.string().min(1).default('0.0.0.0').meta(doc('hl7', 'Address the HL7 MLLP listener binds to.')),
  HL7_LISTENER_TLS_CERT_FILE: z.string().min(1).optional().meta(doc('hl7', 'PEM certificate of the HL7 listener; with `HL7_LISTENER_TLS_KEY_FILE` it speaks MLLP over TLS.', 'plain TCP')),
  HL7_LISTENER_TLS_KEY_FILE: z.string().min(1).optional().meta(doc('hl7', 'PEM private key of the HL7 listener certificate.', 'plain TCP')),
  HL7_LISTENER_TLS_CA_FILE: z.string().min(1).optional().meta(doc('hl7', 'PEM CA bundle: labs must present a client certificate it signed (mutual TLS).', 'no client certificate asked')),
  HL7_MAX_MESSAGE_BYTES: z.coerce.number().int().min(1024).max(100_000_000).default(10_000_000).meta(doc('hl7', 'Largest HL7 message the listener takes, in bytes; a larger frame is refused with AR.')),
  HL7_FRAME_TIMEOUT: duration.default('30s').meta(doc('hl7', 'How long the listener waits for the end of a begun MLLP frame before refusing it as truncated.')),
  HL7_ACK_TIMEOUT: duration.default('30s').meta(doc('hl7', 'How long labflow waits for a lab to ACK an order message before the send is retried.')),
  SANDBOX_HL7_LAB_PORT: port.default(2576).meta(doc('hl7', 'Port the sandbox HL7 lab (worker role `sandbox-hl7-lab`) takes order messages on; point a sandbox HL7 lab account at it.')),
  SANDBOX_HL7_LAB_RESULTS_TO: z
    .string()
    .regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, { message: 'must be host:port' })
    .default('127.0.0.1:2575')
    .meta(doc('hl7', "Where the sandbox HL7 lab sends its results: labflow's HL7 listener, `host:port`.")),
  WORKER_ROLES: z
    .string()
    .refine((value) => value.split(',').every((role) => (WORKER_ROLES as readonly string[]).includes(role.trim())), {
      message: `must be a comma-separated subset of ${WORKER_ROLES.join(',')}`,
    })
    .default(WORKER_ROLES.filter((role) => !OPT_IN_WORKER_ROLES.includes(role)).join(','))
    .meta(
      doc(
        'processes',
        'What the worker process runs, comma-separated. `temporal`: the Temporal worker of the order task queue (orders, appointments, connections, Link bulk operations) and the reconcilers. `relay`: the outbox relay. `delivery`: webhook and RabbitMQ deliveries. `sandbox`: sandbox partner callbacks to `PUBLIC_API_URL`. `retention`: the retention sweep, one worker at a time. `lab-reports`: lab report parsing on `LAB_REPORT_TASK_QUEUE`, so OCR machines scale apart. `continuous-queries`: continuous-query evaluations, any number of workers at once. `hl7` (only when named): the MLLP listener labs send results to, on `HL7_LISTENER_PORT`. `sandbox-hl7-lab` (only when named): the sandbox lab’s HL7 interface on `SANDBOX_HL7_LAB_PORT`.',
      ),
    ),
  APPOINTMENT_AVAILABILITY_CACHE_TTL: duration
    .default('60s')
    .meta(doc('appointments', 'How long an availability answer is served from the Redis cache (`0s`: no cache). Responses say `x-labflow-cache: off|miss|hit|stale`.')),
  APPOINTMENT_AVAILABILITY_STALE_TTL: duration.default('10m').meta(doc('appointments', 'With `allow_stale=true`, a cached answer up to this old is served while it refreshes.')),
  APPOINTMENT_PROVIDER_STEP_DELAY: duration
    .default('5s')
    .meta(
      doc(
        'sandbox',
        'Sandbox appointment providers: delay before they confirm a pending booking (async confirmation, provider-managed requests) or cancel on their side (notes containing `[sandbox:provider_cancel]`).',
      ),
    ),
  APPOINTMENT_NO_SHOW_GRACE: duration.default('1d').meta(doc('appointments', 'An appointment nobody reported on this long after its end is closed as a no-show (cancelled).')),
  APPOINTMENT_IDEMPOTENCY_KEY_TTL: duration.default('14d').meta(doc('appointments', "How long a PSC booking's `x-idempotency-key` answers with the appointment it made.")),
  LAB_REPORT_TASK_QUEUE: z
    .string()
    .min(1)
    .default(LAB_REPORT_TASK_QUEUE)
    .meta(doc('labReports', "Task queue of the parsing workflows and their OCR-heavy activities, apart from the order workflows' queue (worker role `lab-reports`).")),
  LAB_REPORT_STEP_TIMEOUT: duration.default('10m').meta(doc('labReports', 'Longest one processing step (extract, parse, match) may run.')),
  LAB_REPORT_HEARTBEAT_TIMEOUT: duration.default('30s').meta(doc('labReports', 'A step whose worker sent no heartbeat this long (the worker died) is retried on another.')),
  LAB_REPORT_RETRY_INTERVAL: duration.default('2s').meta(doc('labReports', 'First retry delay of a failing step (doubling after).')),
  LAB_REPORT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5).meta(doc('labReports', 'Attempts of a step before the job fails with `processing_error`.')),
  LAB_REPORT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2).meta(doc('labReports', 'Processing steps one worker runs at once (OCR keeps a core busy per page).')),
  LAB_REPORT_START_GRACE: duration.default('10s').meta(doc('labReports', "A job this old whose workflow is not known to run gets it started by the worker's sweep.")),
  PORTAL_LAUNCH_TTL: duration.default('5m').meta(doc('portal', 'How long a `launch` URL works (it works once).')),
  PORTAL_COMMUNICATIONS_TTL: duration.default('28d').meta(doc('portal', 'How long a `communications` short link (`/p/<code>`) works, unless revoked.')),
  PORTAL_SESSION_TTL: duration.default('1h').meta(doc('portal', 'How long a session lasts after a link was opened.')),
  PORTAL_DEVICE_TTL: duration.default('90d').meta(doc('portal', "How long a device that entered a one-time code is remembered for that link (never past the link's expiry).")),
  PORTAL_CODE_TTL: duration.default('10m').meta(doc('portal', 'How long a one-time code works.')),
  PORTAL_CODE_MAX_FAILURES: z.coerce.number().int().min(1).max(100).default(5).meta(doc('portal', 'Wrong codes a communications link takes over its whole life before it locks.')),
  PORTAL_CODE_MAX_SENDS: z.coerce.number().int().min(1).max(100).default(10).meta(doc('portal', 'One-time codes a communications link sends over its whole life.')),
  SMTP_URL: z
    .string()
    .url()
    .refine((value) => /^smtps?:/.test(value), { message: 'must be an smtp:// or smtps:// URL' })
    .optional()
    .meta(
      doc(
        'reminders',
        'SMTP server of e-mails to patients (`smtp://` or `smtps://user:pass@host:port`).',
        'e-mail goes only to the development outbox, and is not offered in production',
      ),
    ),
  REMINDER_BOOK_APPOINTMENT_AFTER: offsetList
    .prefault('24h,72h,7d')
    .meta(
      doc(
        'reminders',
        "Book-your-appointment reminders this long after an appointment order's requisition is ready (or its appointment was cancelled) while nothing is booked; `off`: none.",
      ),
    ),
  REMINDER_APPOINTMENT_BEFORE: offsetList
    .prefault('24h')
    .meta(doc('reminders', 'Reminders this long before a booked appointment (one per value; a reschedule moves them); `off`: none.')),
  REMINDER_KIT_RETURN_AFTER: offsetList
    .prefault('2d,7d')
    .meta(doc('reminders', 'Kit-return reminders this long after a test kit reached the patient, until the sample is on its way to the lab; `off`: none.')),
  REMINDER_SEND_ATTEMPTS: z
    .coerce.number()
    .int()
    .min(1)
    .max(100)
    .default(5)
    .meta(doc('reminders', "Attempts to send one reminder (the activity's retry policy) before it is given up. The order goes on.")),
  REMINDER_SEND_RETRY_INTERVAL: duration.default('30s').meta(doc('reminders', 'Pause before the first retry of a failed reminder send (doubling after, at most 10 minutes).')),
  NOTIFICATIONS_FROM: z.string().min(3).default('labflow <no-reply@labflow.localhost>').meta(doc('reminders', 'From address of e-mails to patients.')),
  OURA_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .meta(
      doc(
        'link',
        "Oura for production teams: the client id of labflow's OAuth application at Oura (cloud.ouraring.com; redirect URI `<PUBLIC_API_URL>/v2/link/connect/oura`, so `PUBLIC_API_URL` is then required). Set both `OURA_CLIENT_*` or neither. See [Oura](link-and-providers.md#oura).",
        'production teams cannot connect Oura; sandbox teams always get generated Oura data',
      ),
    ),
  OURA_CLIENT_SECRET: z.string().min(1).optional().meta(doc('link', 'The client secret of that Oura application.')),
  OURA_AUTHORIZE_URL: z.string().url().default('https://cloud.ouraring.com/oauth/authorize').meta(doc('link', "Oura's consent page, where the user's browser goes to grant access.")),
  OURA_API_URL: z
    .string()
    .url()
    .default('https://api.ouraring.com')
    .meta(doc('link', "Oura's API: tokens at `<it>/oauth/token`, data under `<it>/v2/usercollection`. Tests point it at a local stand-in.")),
  DEXCOM_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .meta(
      doc(
        'link',
        "Dexcom (`dexcom_v3`) for production teams: the client id of labflow's application at Dexcom (developer.dexcom.com; redirect URI `<PUBLIC_API_URL>/v2/link/connect/dexcom_v3`, so `PUBLIC_API_URL` is then required). Set both `DEXCOM_CLIENT_*` or neither. See [Dexcom](link-and-providers.md#dexcom).",
        'production teams cannot connect Dexcom',
      ),
    ),
  DEXCOM_CLIENT_SECRET: z.string().min(1).optional().meta(doc('link', 'The client secret of that Dexcom application.')),
  DEXCOM_API_URL: z
    .string()
    .url()
    .default('https://api.dexcom.com')
    .meta(
      doc(
        'link',
        "Where Dexcom is: `https://sandbox-api.dexcom.com` for Dexcom's sandbox, `https://api.dexcom.eu` or `https://api.dexcom.jp` outside the US. Login page `<it>/v2/oauth2/login`, tokens `<it>/v2/oauth2/token`, data under `<it>/v3/users/self`.",
      ),
    ),
  WHOOP_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .meta(
      doc(
        'link',
        "WHOOP (`whoop_v2`) for production teams: the client id of labflow's application at WHOOP (developer.whoop.com; redirect URI `<PUBLIC_API_URL>/v2/link/connect/whoop_v2`, so `PUBLIC_API_URL` is then required). Set both `WHOOP_CLIENT_*` or neither. See [WHOOP](link-and-providers.md#whoop).",
        'production teams cannot connect WHOOP',
      ),
    ),
  WHOOP_CLIENT_SECRET: z.string().min(1).optional().meta(doc('link', "The client secret of that WHOOP application; it also checks the signatures of WHOOP's webhooks.")),
  WHOOP_API_URL: z
    .string()
    .url()
    .default('https://api.prod.whoop.com')
    .meta(doc('link', "WHOOP's host: sign-in at `<it>/oauth/oauth2/auth`, tokens `<it>/oauth/oauth2/token`, data under `<it>/developer/v2`.")),
});

export type Environment = z.infer<typeof envSchema>;
