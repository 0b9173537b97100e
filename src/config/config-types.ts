import type { Duration } from '@temporalio/common';
import type { TemporalConnectionOptions } from './temporal-connection';
import type { ConnectionSchedule } from '../../workflows/contract/connections';
import type { Environment, WorkerRole } from './environment';

/** The shape of labflow's parsed configuration: what loadConfig (./config.ts) returns, part by part. */
export interface LabflowConfig {
  env: Environment['NODE_ENV'];
  databaseUrl: string;
  databasePoolMax: number;
  /** DATABASE_SOCKET: `auto`, `off` or the socket's directory (src/db/database-socket.ts). */
  databaseSocket: string;
  redisUrl: string;
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    uiUrl: string;
    /** Address, TLS, API key and gRPC metadata: what every Connection/NativeConnection is given. */
    connection: TemporalConnectionOptions;
    /** The order worker's sticky cache and task slots. */
    worker: { maxCachedWorkflows: number; maxConcurrentWorkflowTasks: number; maxConcurrentActivities: number };
    /** WORKFLOW_BUNDLE: outside production, a prebuilt bundle the worker process loads instead of bundling at start. */
    workflowBundlePath: string | null;
  };
  api: { host: string; port: number; publicUrl: string };
  management: { port: number };
  phiEncryptionKey: Buffer;
  /** Earlier PHI keys: they open what they sealed (PhiCipher), nothing more. */
  phiPreviousKeys: Buffer[];
  temporalPayloadKey?: Buffer;
  /** Earlier payload keys: they open the history payloads they sealed (EncryptionCodec). */
  temporalPayloadPreviousKeys: Buffer[];
  codec: { corsOrigins: string[]; requireKey: boolean };
  userDeletionGrace: string;
  apiKeyCacheTtlMs: number;
  bodyLimitBytes: number;
  connections: ConnectionSchedule;
  /** CONNECTION_SYNC_INTERVALS: provider → its sync interval, in place of connections.syncInterval. */
  connectionSyncIntervals: Record<string, Duration>;
  /** Link Migration's bulk operations: the historical pull's pace, and the longest wait_for_completion. */
  linkMigration: { pullBatch: number; pullInterval: Duration; heartbeatTimeout: Duration; waitMs: number };
  /** SANDBOX_SOURCE_ERRORS: demo provider → the connection error its sandbox source raises. */
  sandboxSourceErrors: Record<string, string>;
  /** FHIR Bulk Data export: how long files are kept, and resources per page. */
  fhirExport: { retentionMs: number; pageSize: number };
  healthData: {
    bodyLimitBytes: number;
    pageSize: number;
    retentionMs: number;
    events: { windowMs: number; maxItems: number; maxBytes: number };
    continuousQueries: { debounceMs: number; pollIntervalMs: number; leaseMs: number };
  };
  logLevel: Environment['LOG_LEVEL'];
  tracing: TracingConfig;
  logFormat: Environment['LOG_FORMAT'];
  logRequests: boolean;
  metrics: { enabled: boolean; token: string | null; temporalPort: number };
  workerHealthPort: number;
  events: EventsConfig;
  workerRoles: WorkerRole[];
  retention: { eventRetentionMs: number; linkBulkOpRetentionMs: number; sweepIntervalMs: number };
  orders: OrdersConfig;
  reconciler: ReconcilerConfig;
  sandboxCallbacks: SandboxCallbacksConfig;
  hl7: Hl7Config;
  appointments: {
    availabilityCacheTtlMs: number;
    availabilityStaleTtlMs: number;
    providerStepDelayMs: number;
    noShowGrace: string;
    idempotencyKeyTtlMs: number;
  };
  labReports: LabReportsConfig;
  portal: PortalConfig;
  /** The mobile SDKs' sign-in (src/mobile): token lifetimes, the signing key's rotation, link codes. */
  mobile: MobileConfig;
  notifications: { smtpUrl: string | null; from: string };
  reminders: RemindersConfig;
  rateLimits: RateLimitsConfig;
  /** Fastify's trustProxy (TRUST_PROXY): which proxies' X-Forwarded-For names the client address. */
  trustProxy: boolean | number | string[];
  /** Real data providers' clients; null where labflow is not registered with the provider. */
  providers: { oura: OuraConfig | null; dexcom: DexcomConfig | null; whoop: WhoopConfig | null };
}

/** labflow's OAuth client at Oura and where Oura is (src/adapters/oura). */
export interface OuraConfig {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  apiUrl: string;
}

/** labflow's OAuth client at Dexcom and where Dexcom is (src/adapters/dexcom). */
export interface DexcomConfig {
  clientId: string;
  clientSecret: string;
  apiUrl: string;
  /** The redirect URI registered at Dexcom (Dexcom wants it again with every refresh). */
  redirectUri: string;
}

/** labflow's OAuth client at WHOOP and where WHOOP is (src/adapters/whoop). */
export interface WhoopConfig {
  clientId: string;
  clientSecret: string;
  apiUrl: string;
}

/** A rate-limit budget: `points` in a fixed window of `durationSeconds`; null: unlimited. */
export type RateBudget = { points: number; durationSeconds: number } | null;

/** The HTTP apps' rate limits (src/rate-limits, docs/rate-limits.md): budgets per key or client address, per route family. */
export interface RateLimitsConfig {
  redisUrl: string;
  keyPrefix: string;
  /** Requests: per team API key, per management key, per client address of each unauthenticated family. */
  requests: { apiKey: RateBudget; managementKey: RateBudget; portal: RateBudget; link: RateBudget; partnerWebhooks: RateBudget };
  /** Refused attempts per client address (guessing): keys, portal codes and launches, link tokens, webhook signatures. */
  failures: { invalidKey: RateBudget; portal: RateBudget; link: RateBudget; partnerWebhooks: RateBudget };
}

/** Patient reminders on the order workflow's timers (workflows/order/reminders.ts, src/reminders). */
export interface RemindersConfig {
  bookAppointmentAfter: string[];
  appointmentBefore: string[];
  kitReturnAfter: string[];
  sendAttempts: number;
  sendRetryInterval: string;
}

/** The patient portal (src/portal). */
export interface MobileConfig {
  signInTokenTtlMs: number;
  accessTokenTtlMs: number;
  refreshTokenTtlMs: number;
  signingKeyRotationMs: number;
  /** MOBILE_SIGNING_KEY (PKCS#8 PEM), or null: labflow generates and rotates its own. */
  signingKey: string | null;
  linkCodeTtlMs: number;
}

export interface PortalConfig {
  launchTtlMs: number;
  communicationsTtlMs: number;
  sessionTtlMs: number;
  deviceTtlMs: number;
  codeTtlMs: number;
  codeMaxFailures: number;
  codeMaxSends: number;
}

/** Lab report parsing jobs (src/lab-reports, workflows/lab-report/). */
export interface LabReportsConfig {
  taskQueue: string;
  stepTimeout: string;
  heartbeatTimeout: string;
  retryInterval: string;
  maxAttempts: number;
  concurrency: number;
  startGraceMs: number;
}

/** OpenTelemetry export (src/common/tracing). */
export interface TracingConfig {
  /** Where spans are POSTed (…/v1/traces), or null: tracing off. */
  otlpTracesUrl: string | null;
  /** OTEL_SERVICE_NAME, overriding the process's own name. */
  serviceName: string | null;
}

/** Order lifecycle timers and order API settings (src/orders). */
export interface OrdersConfig {
  registrationWindow: string;
  sampleToLabWindow: string;
  sandboxStepDelay: string;
  physicianEnforcementDate: Date;
  idempotencyKeyTtlMs: number;
  requisitionLinkTtlMs: number;
  partnerWebhookSecret: string | null;
}

/**
 * The worker's reconcilers (src/orders/order-reconciler.ts, src/connections/connection-reconciler.ts):
 * they share one pass interval, grace, stall horizon and page size (RECONCILER_*).
 */
export interface ReconcilerConfig {
  intervalMs: number;
  graceMs: number;
  stallHorizonMs: number;
  batch: number;
  /** Orders only: new runs started for one order at most. */
  maxHeals: number;
}

/** HL7 v2 labs over MLLP (src/hl7): the listener labs send to, and how long an order send waits. */
export interface Hl7Config {
  listenerPort: number;
  listenerHost: string;
  listenerTls: { certFile: string; keyFile: string; caFile: string | null } | null;
  maxMessageBytes: number;
  frameTimeoutMs: number;
  ackTimeoutMs: number;
  /** Stored messages not handed to their order this long after are handed over again (the listener's sweep, as often). */
  redeliverAfterMs: number;
  /** Worker role hl7-handoff: how often it looks for stored messages when the last look found none. */
  handoffPollMs: number;
  /** The sandbox HL7 lab (worker role sandbox-hl7-lab): its port and labflow's listener it reports to. */
  sandboxLab: { port: number; resultsTo: { host: string; port: number } };
}

/** Sandbox partner callbacks (src/adapters/sandbox-callbacks). */
export interface SandboxCallbacksConfig {
  /** Whether sandbox partners schedule callbacks (SANDBOX_CALLBACKS and a PARTNER_WEBHOOK_SECRET to sign them). */
  enabled: boolean;
  queueName: string;
  courierStepDelayMs: number;
  labResultDelayMs: number;
  /** Where the sandbox partners of `/test` call labflow's partner webhooks (SANDBOX_PARTNERS_API_URL, else the public URL). */
  partnersApiUrl: string;
}

/** Outbox relay and webhook / event-destination delivery (src/events). */
export interface EventsConfig {
  /** Delay before retry n+1 after failed attempt n (ms); attempts = 1 + length. */
  retryScheduleMs: number[];
  deliveryTimeoutMs: number;
  disableAfterMs: number;
  allowPrivateWebhookUrls: boolean;
  concurrency: number;
  queueName: string;
  relayPollIntervalMs: number;
  sweepIntervalMs: number;
  lostJobGraceMs: number;
  jobLockMs: number;
}
