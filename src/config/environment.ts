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

/** What a worker process runs: Temporal workflows/activities, the outbox relay, webhook delivery, sandbox partner callbacks. */
export const WORKER_ROLES = ['temporal', 'relay', 'delivery', 'sandbox', 'retention', 'lab-reports', 'continuous-queries'] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/labflow'),
  /** Postgres connections one process opens at most (all processes together, with Temporal's, must fit max_connections). */
  DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(500).default(20),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379/0'),
  // TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default labflow), TLS and
  // API key: Temporal's own connection settings, read and checked by ./temporal-connection.ts.
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('labflow'),
  TEMPORAL_UI_URL: z.string().url().default('http://127.0.0.1:8233'),
  // The order worker's sizing (README "Many open workflows"): the sticky cache holds this many
  // workflows in memory; the rest are replayed from their history when their next task comes.
  TEMPORAL_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(1000),
  TEMPORAL_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).default(40),
  TEMPORAL_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).default(100),
  API_HOST: z.string().default('127.0.0.1'),
  API_PORT: port.default(8000),
  MANAGEMENT_PORT: port.default(8001),
  PUBLIC_API_URL: z.string().url().optional(),
  /** 32 random bytes, base64: encrypts PHI columns with AES-256-GCM. */
  PHI_ENCRYPTION_KEY: z.string().refine(isKey, { message: 'must be 32 random bytes in base64 (openssl rand -base64 32)' }),
  /**
   * Earlier PHI keys (comma-separated, each 32 bytes in base64), kept after a rotation to read
   * what they sealed until `labflow phi rekey` has sealed it again with PHI_ENCRYPTION_KEY. Never
   * used to seal, nor to check a signature (README "Rotating the PHI key").
   */
  PHI_ENCRYPTION_PREVIOUS_KEYS: keyList,
  /** 32 bytes, base64: encrypts Temporal payloads. Default: derived from PHI_ENCRYPTION_KEY. */
  TEMPORAL_PAYLOAD_KEY: z.string().refine(isKey, { message: 'must be 32 random bytes in base64' }).optional(),
  /** Earlier TEMPORAL_PAYLOAD_KEYs (as PHI_ENCRYPTION_PREVIOUS_KEYS), to read histories they sealed. */
  TEMPORAL_PAYLOAD_PREVIOUS_KEYS: keyList,
  /** Origins allowed to call the codec endpoint (the Temporal UI). */
  CODEC_CORS_ORIGINS: z.string().default('http://127.0.0.1:8233,http://localhost:8233'),
  /** Require a management key on the codec endpoint (always on in production). */
  CODEC_REQUIRE_KEY: boolFlag.optional(),
  /** How long a deleted user can still be restored (Junction: 7 days). */
  USER_DELETION_GRACE: duration.default('7d'),
  /** How long the API keeps a verified team API key in memory (revocations reach it at once; 0s: look up every request). */
  API_KEY_CACHE_TTL: duration.default('60s'),
  /** Largest JSON body accepted; larger ones answer 413. */
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  /** Largest JSON body of health-data ingestion (tens of thousands of samples per request). */
  HEALTH_DATA_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(64 * 1_048_576),
  /** Samples per page of a grouped timeseries read (`next_cursor` pages on). */
  HEALTH_DATA_PAGE_SIZE: z.coerce.number().int().min(1).max(100_000).default(10_000),
  /**
   * Timeseries events gather the samples of one user, resource, provider and source type for this
   * long after the first (across requests) before they are sent as one event; "0s": each request's
   * samples go out at the next relay pass.
   */
  HEALTH_DATA_EVENT_WINDOW: duration.default('5s'),
  /** Continuous queries: how long after a user's data changed their queries are evaluated (writes meanwhile join the wait). */
  CONTINUOUS_QUERY_DEBOUNCE: duration.default('10s'),
  /** How often the worker (role continuous-queries) looks for due evaluations. */
  CONTINUOUS_QUERY_POLL_INTERVAL: duration.default('1s'),
  /** An evaluation not finished this long after it started (its worker died) is started again. */
  CONTINUOUS_QUERY_LEASE: duration.default('5m'),
  /** Samples of one timeseries event at most; more go into further events. */
  HEALTH_DATA_EVENT_MAX_SAMPLES: z.coerce.number().int().min(1).default(10_000),
  /** Bytes of sample JSON in one timeseries event at most (webhook payloads are bounded). */
  HEALTH_DATA_EVENT_MAX_BYTES: z.coerce.number().int().min(1024).default(256 * 1024),
  /** Days of history a new connection backfills (Junction's demo connections: 30). */
  CONNECTION_BACKFILL_DAYS: z.coerce.number().int().min(0).max(365).default(30),
  /** History one backfill step syncs (one activity each: a crashed worker repeats one step). */
  CONNECTION_BACKFILL_CHUNK: duration.default('1d'),
  /** Time between a connection's incremental syncs. */
  CONNECTION_SYNC_INTERVAL: duration.default('15m'),
  /** Incremental syncs per workflow run before continue-as-new keeps its history short. */
  CONNECTION_SYNCS_PER_RUN: z.coerce.number().int().min(1).max(1000).default(96),
  /**
   * Sync intervals of particular providers, as `provider=duration` pairs, in place of
   * CONNECTION_SYNC_INTERVAL for connections made from then on (a running connection keeps the one
   * it started with until it is connected again). WHOOP allows an application 10,000 requests a
   * day, and a WHOOP sync costs four: every 2 h that is ~48 a member a day.
   */
  CONNECTION_SYNC_INTERVALS: z
    .string()
    .trim()
    .refine((value) => value === '' || value.split(',').every((pair) => /^[a-z0-9_]+=/.test(pair.trim()) && duration.safeParse(pair.trim().split('=')[1]).success), {
      message: 'must be a comma-separated list of provider=duration, such as "whoop_v2=2h,oura=30m"',
    })
    .default('whoop_v2=2h'),
  /** How long one sync step may take before Temporal runs it again (a killed worker's step). */
  CONNECTION_SYNC_TIMEOUT: duration.default('2m'),
  /** A sync step heartbeats while it runs; one whose worker sent none this long (the worker died) is run again. */
  CONNECTION_SYNC_HEARTBEAT_TIMEOUT: duration.default('30s'),
  /** First retry interval of a failed sync step (doubling up to 10 minutes). */
  CONNECTION_SYNC_RETRY_INTERVAL: duration.default('5s'),
  /**
   * Link Migration's bulk historical pull: connections pulled per step, and the pause between
   * steps (10 per 20 s is Oura's pace in Junction, 150 per 5 minutes, to spare the provider's rate limit).
   */
  LINK_BULK_PULL_BATCH: z.coerce.number().int().min(1).max(1000).default(10),
  LINK_BULK_PULL_INTERVAL: duration.default('20s'),
  /** A bulk operation's step heartbeats while it runs; a step whose worker sent none this long (the worker died) is retried. */
  LINK_BULK_HEARTBEAT_TIMEOUT: duration.default('30s'),
  /** An ended bulk operation's users (a row each) are deleted this long after it ended; the operation stays listed with its counts. */
  LINK_BULK_OP_RETENTION: duration.default('90d'),
  /** How long a bulk operation asked with wait_for_completion is waited for before the answer is 202 (Junction: 20 s). */
  LINK_BULK_WAIT: duration.default('20s'),
  /**
   * Sandbox only: demo providers whose source refuses every sync with a connection error, as
   * `provider=error_type` pairs (`fitbit=token_refresh_failed,oura=required_scopes_not_granted`),
   * to see a failing source (provider.connection.error, status error) without a real one.
   */
  SANDBOX_SOURCE_ERRORS: z
    .string()
    .regex(/^([a-z_]+=[a-z_]+(,[a-z_]+=[a-z_]+)*)?$/, 'a comma-separated list of provider=error_type')
    .default(''),
  /** OTLP/HTTP base URL (e.g. http://otel-collector:4318): traces are exported to <it>/v1/traces; unset: tracing off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** The full traces URL, overriding OTEL_EXPORTER_OTLP_ENDPOINT for traces. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /** Overrides the service name of the process's spans (labflow-api, labflow-management, labflow-worker). */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** Level of every process's log (API, management API, worker, Temporal's worker logs). */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  /** `json` (one JSON object a line) or `pretty` (human-readable; npm run up). */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  /** Log a line per request and per response (off in tests to keep output readable). */
  LOG_REQUESTS: boolFlag.default(true),
  /** Prometheus metrics: GET /metrics on each process and the HTTP request metrics behind it. */
  METRICS_ENABLED: boolFlag.default(true),
  /** When set, GET /metrics asks for `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise). */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** The worker's own HTTP port: /health/live, /health/ready and /metrics (0: any free port). */
  WORKER_HEALTH_PORT: port.default(8002),
  /** Loopback port of the Temporal SDK's Prometheus exporter, merged into the worker's /metrics (0: any free port). */
  TEMPORAL_METRICS_PORT: port.default(0),
  /** Delays before each retry after a failed webhook attempt (Junction: 0s,5s,5m,30m,2h,5h,10h,10h). */
  WEBHOOK_RETRY_SCHEDULE: durationList.default('0s,5s,5m,30m,2h,5h,10h,10h'),
  /** A webhook attempt counts as successful only with a 2xx within this time. */
  WEBHOOK_DELIVERY_TIMEOUT: duration.default('15s'),
  /** An endpoint failing without a single success for this long is disabled. */
  WEBHOOK_DISABLE_AFTER: duration.default('5d'),
  /** Accept webhook URLs aimed at loopback/private/link-local addresses (default: not in production). */
  ALLOW_PRIVATE_WEBHOOK_URLS: boolFlag.optional(),
  /** Parallel webhook/destination deliveries per worker process. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
  /** BullMQ queue of event deliveries (tests use one per stack). */
  EVENTS_QUEUE: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/).default('labflow-events'),
  /** The relay wakes on Postgres NOTIFY; this poll is the fallback. */
  EVENTS_RELAY_POLL_INTERVAL: duration.default('1s'),
  /** How often the relay looks for pending deliveries whose BullMQ job went missing. */
  EVENTS_SWEEP_INTERVAL: duration.default('30s'),
  /** A pending delivery this late is re-enqueued (harmless when its job still exists). */
  EVENTS_LOST_JOB_GRACE: duration.default('2m'),
  /** BullMQ job lock: a delivery job held by a dead worker is picked up again after about this long. */
  EVENTS_JOB_LOCK: duration.default('30s'),
  /** How long relayed events (with their deliveries and attempts) are kept; the newest event of each order is always kept. */
  EVENT_RETENTION: duration.default('90d'),
  /** Health-data samples: whole months older than this are dropped by the retention sweep ("0s": kept forever). */
  HEALTH_DATA_RETENTION: duration.default('0s'),
  /** How often the worker's retention role deletes expired events and idempotency keys ("0s" turns it off). */
  RETENTION_SWEEP_INTERVAL: duration.default('1h'),
  /** Orders: how long a customer has to register a received kit before the order is cancelled. */
  ORDER_REGISTRATION_WINDOW: duration.default('60d'),
  /** Orders: how long a kit may take from the customer to the lab before it counts as lost. */
  ORDER_SAMPLE_TO_LAB_WINDOW: duration.default('30d'),
  /** Orders: default pause between the steps of a sandbox simulation. */
  SANDBOX_STEP_DELAY: duration.default('1s'),
  /** From this date (YYYY-MM-DD) delegated lab accounts need a physician on the order. */
  PHYSICIAN_ENFORCEMENT_DATE: z.iso.date().default('2026-08-01'),
  /** How often the worker's reconcilers run a pass: over order workflows that did not start, closed, vanished or stalled, and over connections whose workflow closed or vanished ("0s" turns them off). */
  RECONCILER_INTERVAL: duration.default('10s'),
  /** An order row this old without a workflow start is started by the reconciler; a connection row younger than this is not examined yet. */
  RECONCILER_GRACE: duration.default('5s'),
  /** A running order workflow with work due and no progress for this long is raised as stalled; also how long a closed order or connection workflow of another task queue is left to that queue's reconciler. */
  RECONCILER_STALL_HORIZON: duration.default('15m'),
  /** Non-terminal orders, and connections, the reconcilers examine per pass (they page through them pass after pass). */
  RECONCILER_BATCH: z.coerce.number().int().min(1).max(10_000).default(100),
  /** New runs the reconciler starts for one order at most; past that it only raises the order. */
  RECONCILER_MAX_HEALS: z.coerce.number().int().min(0).max(1000).default(3),
  /** How long an X-Idempotency-Key answer is kept and replayed. */
  IDEMPOTENCY_KEY_TTL: duration.default('24h'),
  /** How long a requisition_form_url (signed link, no API key needed) works after the order was read. */
  REQUISITION_LINK_TTL: duration.default('7d'),
  /** HMAC secret of the courier and lab tracking webhooks (POST /v3/webhooks/{courier,lab}/sandbox); unset: they refuse. */
  PARTNER_WEBHOOK_SECRET: z.string().min(16).optional(),
  /** Sandbox partners (courier, lab) call labflow's partner webhooks back for production-environment orders (needs PARTNER_WEBHOOK_SECRET). */
  SANDBOX_CALLBACKS: boolFlag.default(true),
  /** BullMQ queue of sandbox partner callbacks (tests use one per stack). */
  SANDBOX_CALLBACKS_QUEUE: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/).default('labflow-sandbox-callbacks'),
  /** Sandbox courier: pause between its tracking updates (out_for_delivery … delivered_to_lab). */
  SANDBOX_COURIER_STEP_DELAY: duration.default('5s'),
  /** Sandbox lab: how long after a sample is delivered it reports the order completed. */
  SANDBOX_LAB_RESULT_DELAY: duration.default('15s'),
  /** Comma-separated subset of temporal,relay,delivery,sandbox run by the worker process. */
  WORKER_ROLES: z
    .string()
    .refine((value) => value.split(',').every((role) => (WORKER_ROLES as readonly string[]).includes(role.trim())), {
      message: `must be a comma-separated subset of ${WORKER_ROLES.join(',')}`,
    })
    .default(WORKER_ROLES.join(',')),
  /** Appointments: how long an availability answer is served from the Redis cache ("0s" turns the cache off). */
  APPOINTMENT_AVAILABILITY_CACHE_TTL: duration.default('60s'),
  /** Appointments: how long a cached answer is kept for `allow_stale=true` (refreshed in the background). */
  APPOINTMENT_AVAILABILITY_STALE_TTL: duration.default('10m'),
  /** Sandbox appointment providers: delay before they confirm a pending booking or cancel on their side. */
  APPOINTMENT_PROVIDER_STEP_DELAY: duration.default('5s'),
  /** How long after its end an appointment nobody reported on is closed as a no-show. */
  APPOINTMENT_NO_SHOW_GRACE: duration.default('1d'),
  /** How long a PSC booking's x-idempotency-key is remembered. */
  APPOINTMENT_IDEMPOTENCY_KEY_TTL: duration.default('14d'),
  /** Lab reports: the task queue of parsing workflows and their OCR-heavy activities (role lab-reports). */
  LAB_REPORT_TASK_QUEUE: z.string().min(1).default(LAB_REPORT_TASK_QUEUE),
  /** Lab reports: longest one processing step (extract, parse, match) may run. */
  LAB_REPORT_STEP_TIMEOUT: duration.default('10m'),
  /** Lab reports: a step whose worker sent no heartbeat this long (the worker died) is retried. */
  LAB_REPORT_HEARTBEAT_TIMEOUT: duration.default('30s'),
  /** Lab reports: first retry delay of a failing step (doubling after). */
  LAB_REPORT_RETRY_INTERVAL: duration.default('2s'),
  /** Lab reports: attempts of a step before the job fails with processing_error. */
  LAB_REPORT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** Lab reports: processing steps one worker runs at once (OCR keeps a core busy per page). */
  LAB_REPORT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Lab reports: a job this old whose workflow is not known to run gets it started by the worker's sweep. */
  LAB_REPORT_START_GRACE: duration.default('10s'),
  /** Patient portal: how long a `launch` URL works (single use). */
  PORTAL_LAUNCH_TTL: duration.default('5m'),
  /** Patient portal: how long a `communications` short link works (until revoked). */
  PORTAL_COMMUNICATIONS_TTL: duration.default('28d'),
  /** Patient portal: how long a session lasts after the link was opened. */
  PORTAL_SESSION_TTL: duration.default('1h'),
  /** Patient portal: how long a device that entered a one-time code is remembered (never past the link's expiry). */
  PORTAL_DEVICE_TTL: duration.default('90d'),
  /** Patient portal: how long a one-time code works. */
  PORTAL_CODE_TTL: duration.default('10m'),
  /** Patient portal: wrong codes a communications link accepts over its life before it locks. */
  PORTAL_CODE_MAX_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
  /** Patient portal: one-time codes a communications link sends over its life. */
  PORTAL_CODE_MAX_SENDS: z.coerce.number().int().min(1).max(100).default(10),
  /** Notifications: SMTP server of e-mails to patients (smtp:// or smtps://); unset: e-mail is offered only outside production, into the dev outbox. */
  SMTP_URL: z.string().url().refine((value) => /^smtps?:/.test(value), { message: 'must be an smtp:// or smtps:// URL' }).optional(),
  /** Patient reminders (Junction's schedule): book-your-appointment reminders this long after the requisition is ready with nothing booked. */
  REMINDER_BOOK_APPOINTMENT_AFTER: offsetList.prefault('24h,72h,7d'),
  /** Patient reminders: this long before a booked appointment. */
  REMINDER_APPOINTMENT_BEFORE: offsetList.prefault('24h'),
  /** Patient reminders: kit-return reminders this long after the kit reached the patient. */
  REMINDER_KIT_RETURN_AFTER: offsetList.prefault('2d,7d'),
  /** Patient reminders: attempts to send one reminder before it is given up (the order goes on). */
  REMINDER_SEND_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** Patient reminders: pause before the first retry of a failed send (doubling after). */
  REMINDER_SEND_RETRY_INTERVAL: duration.default('30s'),
  /** Notifications: the From of e-mails to patients. */
  NOTIFICATIONS_FROM: z.string().min(3).default('labflow <no-reply@labflow.localhost>'),
  /**
   * Oura (production teams): the OAuth client labflow registered at Oura (cloud.ouraring.com,
   * "OAuth applications", redirect URI `<PUBLIC_API_URL>/v2/link/connect/oura`). Both or neither;
   * unset: production teams cannot connect Oura (sandbox teams always get generated Oura data).
   */
  OURA_CLIENT_ID: z.string().min(1).optional(),
  OURA_CLIENT_SECRET: z.string().min(1).optional(),
  /** Oura's authorization page (the user's browser goes there to grant access). */
  OURA_AUTHORIZE_URL: z.string().url().default('https://cloud.ouraring.com/oauth/authorize'),
  /** Oura's API (its token endpoint is `<it>/oauth/token`, data under `<it>/v2/usercollection`). */
  OURA_API_URL: z.string().url().default('https://api.ouraring.com'),
  /**
   * Dexcom (production teams): the OAuth client labflow registered at Dexcom (developer.dexcom.com,
   * redirect URI `<PUBLIC_API_URL>/v2/link/connect/dexcom_v3`). Both or neither; unset: production
   * teams cannot connect Dexcom.
   */
  DEXCOM_CLIENT_ID: z.string().min(1).optional(),
  DEXCOM_CLIENT_SECRET: z.string().min(1).optional(),
  /** Dexcom's API (https://sandbox-api.dexcom.com for Dexcom's sandbox; https://api.dexcom.eu, https://api.dexcom.jp outside the US): its login page is `<it>/v2/oauth2/login`, tokens `<it>/v2/oauth2/token`, data under `<it>/v3/users/self`. */
  DEXCOM_API_URL: z.string().url().default('https://api.dexcom.com'),
  /**
   * WHOOP (production teams): the OAuth client labflow registered at WHOOP (developer.whoop.com,
   * redirect URI `<PUBLIC_API_URL>/v2/link/connect/whoop_v2`). Both or neither; unset: production
   * teams cannot connect WHOOP.
   */
  WHOOP_CLIENT_ID: z.string().min(1).optional(),
  WHOOP_CLIENT_SECRET: z.string().min(1).optional(),
  /** WHOOP's host: sign-in at `<it>/oauth/oauth2/auth`, tokens `<it>/oauth/oauth2/token`, data under `<it>/developer/v2`. */
  WHOOP_API_URL: z.string().url().default('https://api.prod.whoop.com'),
});

export type Environment = z.infer<typeof envSchema>;
