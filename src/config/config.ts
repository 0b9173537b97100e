import type { Duration } from '@temporalio/common';
import { resolveTemporalConnection } from './temporal-connection';
import type { LabflowConfig, RateBudget } from './config-types';
import { type Environment, envSchema, toMs, type WorkerRole } from './environment';

/**
 * Every setting labflow reads from its environment (environment.ts), parsed and validated once at
 * start-up. A bad value stops the process with a message naming the variable (see `loadConfig`).
 */
export { type Environment, WORKER_ROLES, type WorkerRole } from './environment';
export type * from './config-types';

export class ConfigError extends Error {}

/** The real OAuth providers labflow can be registered with: env prefix, name, slug. */
const OAUTH_PROVIDER_CLIENTS = [
  { prefix: 'OURA', name: 'Oura', slug: 'oura' },
  { prefix: 'DEXCOM', name: 'Dexcom', slug: 'dexcom_v3' },
  { prefix: 'WHOOP', name: 'WHOOP', slug: 'whoop_v2' },
] as const;

/**
 * A provider's client is both halves or neither, and needs PUBLIC_API_URL: the provider sends the
 * user back only to the redirect URI registered with it, which is built on it.
 */
function oauthClientProblems(env: Environment, client: (typeof OAUTH_PROVIDER_CLIENTS)[number]): string[] {
  const id = env[`${client.prefix}_CLIENT_ID`];
  const secret = env[`${client.prefix}_CLIENT_SECRET`];
  if (!id !== !secret) return [`${client.prefix}_CLIENT_ID, ${client.prefix}_CLIENT_SECRET: set both or neither`];
  if (id && !env.PUBLIC_API_URL) {
    return [
      `PUBLIC_API_URL: required with ${client.prefix}_CLIENT_ID (${client.name} sends users back to <PUBLIC_API_URL>/v2/link/connect/${client.slug}, the redirect URI registered at ${client.name})`,
    ];
  }
  return [];
}

/** The HL7 listener's certificate and key come together; a CA for client certificates needs both. */
function hl7ListenerTlsProblems(e: Environment): string[] {
  if (!e.HL7_LISTENER_TLS_CERT_FILE !== !e.HL7_LISTENER_TLS_KEY_FILE) return ['HL7_LISTENER_TLS_CERT_FILE, HL7_LISTENER_TLS_KEY_FILE: set both or neither'];
  if (e.HL7_LISTENER_TLS_CA_FILE && !e.HL7_LISTENER_TLS_CERT_FILE)
    return ['HL7_LISTENER_TLS_CA_FILE: needs HL7_LISTENER_TLS_CERT_FILE and HL7_LISTENER_TLS_KEY_FILE (TLS) too'];
  return [];
}

/** A `key=value,key=value` setting (validated by its schema) as a record. */
function pairsOf(list: string): Record<string, string> {
  return Object.fromEntries(
    list
      .split(',')
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => pair.split('=') as [string, string]),
  );
}

/** RATE_LIMIT_* (validated by its schema: `<count>/<window>` or `off`) as a budget. */
function rateBudgetOf(value: string): RateBudget {
  if (value === 'off') return null;
  const [points, window] = value.split('/');
  return { points: Number(points), durationSeconds: toMs(window) / 1000 };
}

/** Parses the environment once; throws a ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): LabflowConfig {
  const parsed = envSchema.safeParse(source);
  const temporal = resolveTemporalConnection(source);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)),
    ...(temporal.ok ? [] : temporal.errors),
    ...(parsed.success ? OAUTH_PROVIDER_CLIENTS.flatMap((client) => oauthClientProblems(parsed.data, client)) : []),
    ...(parsed.success ? hl7ListenerTlsProblems(parsed.data) : []),
  ];
  if (!parsed.success || !temporal.ok || problems.length > 0) {
    throw new ConfigError(`labflow configuration is invalid:\n${problems.map((line) => `  ${line}`).join('\n')}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    databaseSocket: e.DATABASE_SOCKET,
    redisUrl: e.REDIS_URL,
    temporal: {
      address: temporal.settings.connection.address,
      namespace: temporal.settings.namespace,
      connection: temporal.settings.connection,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiUrl: e.TEMPORAL_UI_URL,
      worker: {
        maxCachedWorkflows: e.TEMPORAL_MAX_CACHED_WORKFLOWS,
        maxConcurrentWorkflowTasks: e.TEMPORAL_MAX_CONCURRENT_WORKFLOW_TASKS,
        maxConcurrentActivities: e.TEMPORAL_MAX_CONCURRENT_ACTIVITIES,
      },
      workflowBundlePath: e.WORKFLOW_BUNDLE ?? null,
    },
    api: {
      host: e.API_HOST,
      port: e.API_PORT,
      publicUrl: e.PUBLIC_API_URL ?? `http://${e.API_HOST}:${e.API_PORT}`,
    },
    management: { port: e.MANAGEMENT_PORT },
    phiEncryptionKey: Buffer.from(e.PHI_ENCRYPTION_KEY, 'base64'),
    phiPreviousKeys: e.PHI_ENCRYPTION_PREVIOUS_KEYS,
    temporalPayloadKey: e.TEMPORAL_PAYLOAD_KEY ? Buffer.from(e.TEMPORAL_PAYLOAD_KEY, 'base64') : undefined,
    temporalPayloadPreviousKeys: e.TEMPORAL_PAYLOAD_PREVIOUS_KEYS,
    codec: {
      corsOrigins: e.CODEC_CORS_ORIGINS.split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
      requireKey: e.CODEC_REQUIRE_KEY ?? e.NODE_ENV === 'production',
    },
    userDeletionGrace: e.USER_DELETION_GRACE,
    apiKeyCacheTtlMs: toMs(e.API_KEY_CACHE_TTL),
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    connections: {
      backfillDays: e.CONNECTION_BACKFILL_DAYS,
      backfillChunkMs: toMs(e.CONNECTION_BACKFILL_CHUNK),
      syncInterval: e.CONNECTION_SYNC_INTERVAL as Duration,
      syncsPerRun: e.CONNECTION_SYNCS_PER_RUN,
      syncTimeout: e.CONNECTION_SYNC_TIMEOUT as Duration,
      syncRetryInterval: e.CONNECTION_SYNC_RETRY_INTERVAL as Duration,
      syncHeartbeatTimeout: e.CONNECTION_SYNC_HEARTBEAT_TIMEOUT as Duration,
    },
    connectionSyncIntervals: pairsOf(e.CONNECTION_SYNC_INTERVALS) as Record<string, Duration>,
    linkMigration: {
      pullBatch: e.LINK_BULK_PULL_BATCH,
      pullInterval: e.LINK_BULK_PULL_INTERVAL as Duration,
      heartbeatTimeout: e.LINK_BULK_HEARTBEAT_TIMEOUT as Duration,
      waitMs: toMs(e.LINK_BULK_WAIT),
    },
    sandboxSourceErrors: pairsOf(e.SANDBOX_SOURCE_ERRORS),
    fhirExport: { retentionMs: toMs(e.FHIR_EXPORT_RETENTION), pageSize: e.FHIR_EXPORT_PAGE_SIZE },
    healthData: {
      bodyLimitBytes: e.HEALTH_DATA_BODY_LIMIT_BYTES,
      pageSize: e.HEALTH_DATA_PAGE_SIZE,
      retentionMs: toMs(e.HEALTH_DATA_RETENTION),
      events: { windowMs: toMs(e.HEALTH_DATA_EVENT_WINDOW), maxItems: e.HEALTH_DATA_EVENT_MAX_SAMPLES, maxBytes: e.HEALTH_DATA_EVENT_MAX_BYTES },
      continuousQueries: {
        debounceMs: toMs(e.CONTINUOUS_QUERY_DEBOUNCE),
        pollIntervalMs: toMs(e.CONTINUOUS_QUERY_POLL_INTERVAL),
        leaseMs: toMs(e.CONTINUOUS_QUERY_LEASE),
      },
    },
    logLevel: e.LOG_LEVEL,
    tracing: {
      otlpTracesUrl:
        e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : null),
      serviceName: e.OTEL_SERVICE_NAME ?? null,
    },
    logFormat: e.LOG_FORMAT,
    logRequests: e.LOG_REQUESTS,
    metrics: { enabled: e.METRICS_ENABLED, token: e.METRICS_TOKEN ?? null, temporalPort: e.TEMPORAL_METRICS_PORT },
    workerHealthPort: e.WORKER_HEALTH_PORT,
    events: {
      retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE.split(',').map((part) => toMs(part.trim())),
      deliveryTimeoutMs: toMs(e.WEBHOOK_DELIVERY_TIMEOUT),
      disableAfterMs: toMs(e.WEBHOOK_DISABLE_AFTER),
      allowPrivateWebhookUrls: e.ALLOW_PRIVATE_WEBHOOK_URLS ?? e.NODE_ENV !== 'production',
      concurrency: e.WEBHOOK_CONCURRENCY,
      queueName: e.EVENTS_QUEUE,
      relayPollIntervalMs: toMs(e.EVENTS_RELAY_POLL_INTERVAL),
      sweepIntervalMs: toMs(e.EVENTS_SWEEP_INTERVAL),
      lostJobGraceMs: toMs(e.EVENTS_LOST_JOB_GRACE),
      jobLockMs: toMs(e.EVENTS_JOB_LOCK),
    },
    workerRoles: [...new Set(e.WORKER_ROLES.split(',').map((role) => role.trim() as WorkerRole))],
    retention: {
      eventRetentionMs: toMs(e.EVENT_RETENTION),
      linkBulkOpRetentionMs: toMs(e.LINK_BULK_OP_RETENTION),
      sweepIntervalMs: toMs(e.RETENTION_SWEEP_INTERVAL),
    },
    orders: {
      registrationWindow: e.ORDER_REGISTRATION_WINDOW,
      sampleToLabWindow: e.ORDER_SAMPLE_TO_LAB_WINDOW,
      sandboxStepDelay: e.SANDBOX_STEP_DELAY,
      physicianEnforcementDate: new Date(`${e.PHYSICIAN_ENFORCEMENT_DATE}T00:00:00Z`),
      idempotencyKeyTtlMs: toMs(e.IDEMPOTENCY_KEY_TTL),
      requisitionLinkTtlMs: toMs(e.REQUISITION_LINK_TTL),
      partnerWebhookSecret: e.PARTNER_WEBHOOK_SECRET ?? null,
    },
    reconciler: {
      intervalMs: toMs(e.RECONCILER_INTERVAL),
      graceMs: toMs(e.RECONCILER_GRACE),
      stallHorizonMs: toMs(e.RECONCILER_STALL_HORIZON),
      batch: e.RECONCILER_BATCH,
      maxHeals: e.RECONCILER_MAX_HEALS,
    },
    sandboxCallbacks: {
      enabled: e.SANDBOX_CALLBACKS && Boolean(e.PARTNER_WEBHOOK_SECRET),
      queueName: e.SANDBOX_CALLBACKS_QUEUE,
      courierStepDelayMs: toMs(e.SANDBOX_COURIER_STEP_DELAY),
      labResultDelayMs: toMs(e.SANDBOX_LAB_RESULT_DELAY),
      partnersApiUrl: e.SANDBOX_PARTNERS_API_URL ?? e.PUBLIC_API_URL ?? `http://${e.API_HOST}:${e.API_PORT}`,
    },
    hl7: {
      listenerPort: e.HL7_LISTENER_PORT,
      listenerHost: e.HL7_LISTENER_HOST,
      listenerTls:
        e.HL7_LISTENER_TLS_CERT_FILE && e.HL7_LISTENER_TLS_KEY_FILE
          ? { certFile: e.HL7_LISTENER_TLS_CERT_FILE, keyFile: e.HL7_LISTENER_TLS_KEY_FILE, caFile: e.HL7_LISTENER_TLS_CA_FILE ?? null }
          : null,
      maxMessageBytes: e.HL7_MAX_MESSAGE_BYTES,
      frameTimeoutMs: toMs(e.HL7_FRAME_TIMEOUT),
      ackTimeoutMs: toMs(e.HL7_ACK_TIMEOUT),
      redeliverAfterMs: toMs(e.HL7_REDELIVER_AFTER),
      handoffPollMs: toMs(e.HL7_HANDOFF_POLL),
      sandboxLab: {
        port: e.SANDBOX_HL7_LAB_PORT,
        resultsTo: { host: e.SANDBOX_HL7_LAB_RESULTS_TO.split(':')[0], port: Number(e.SANDBOX_HL7_LAB_RESULTS_TO.split(':')[1]) },
      },
    },
    appointments: {
      availabilityCacheTtlMs: toMs(e.APPOINTMENT_AVAILABILITY_CACHE_TTL),
      availabilityStaleTtlMs: toMs(e.APPOINTMENT_AVAILABILITY_STALE_TTL),
      providerStepDelayMs: toMs(e.APPOINTMENT_PROVIDER_STEP_DELAY),
      noShowGrace: e.APPOINTMENT_NO_SHOW_GRACE,
      idempotencyKeyTtlMs: toMs(e.APPOINTMENT_IDEMPOTENCY_KEY_TTL),
    },
    labReports: {
      taskQueue: e.LAB_REPORT_TASK_QUEUE,
      stepTimeout: e.LAB_REPORT_STEP_TIMEOUT,
      heartbeatTimeout: e.LAB_REPORT_HEARTBEAT_TIMEOUT,
      retryInterval: e.LAB_REPORT_RETRY_INTERVAL,
      maxAttempts: e.LAB_REPORT_MAX_ATTEMPTS,
      concurrency: e.LAB_REPORT_CONCURRENCY,
      startGraceMs: toMs(e.LAB_REPORT_START_GRACE),
    },
    mobile: {
      signInTokenTtlMs: toMs(e.MOBILE_SIGN_IN_TOKEN_TTL),
      accessTokenTtlMs: toMs(e.MOBILE_ACCESS_TOKEN_TTL),
      refreshTokenTtlMs: toMs(e.MOBILE_REFRESH_TOKEN_TTL),
      signingKeyRotationMs: toMs(e.MOBILE_SIGNING_KEY_ROTATION),
      signingKey: e.MOBILE_SIGNING_KEY ?? null,
      linkCodeTtlMs: toMs(e.LINK_CODE_TTL),
    },
    portal: {
      launchTtlMs: toMs(e.PORTAL_LAUNCH_TTL),
      communicationsTtlMs: toMs(e.PORTAL_COMMUNICATIONS_TTL),
      sessionTtlMs: toMs(e.PORTAL_SESSION_TTL),
      deviceTtlMs: toMs(e.PORTAL_DEVICE_TTL),
      codeTtlMs: toMs(e.PORTAL_CODE_TTL),
      codeMaxFailures: e.PORTAL_CODE_MAX_FAILURES,
      codeMaxSends: e.PORTAL_CODE_MAX_SENDS,
    },
    notifications: { smtpUrl: e.SMTP_URL ?? null, from: e.NOTIFICATIONS_FROM },
    rateLimits: {
      redisUrl: e.RATE_LIMIT_REDIS_URL ?? e.REDIS_URL,
      keyPrefix: e.RATE_LIMIT_REDIS_PREFIX,
      requests: {
        apiKey: rateBudgetOf(e.RATE_LIMIT_API_KEY),
        managementKey: rateBudgetOf(e.RATE_LIMIT_MANAGEMENT_KEY),
        portal: rateBudgetOf(e.RATE_LIMIT_PORTAL),
        link: rateBudgetOf(e.RATE_LIMIT_LINK),
        partnerWebhooks: rateBudgetOf(e.RATE_LIMIT_PARTNER_WEBHOOKS),
      },
      failures: {
        invalidKey: rateBudgetOf(e.RATE_LIMIT_INVALID_KEYS),
        portal: rateBudgetOf(e.RATE_LIMIT_PORTAL_FAILURES),
        link: rateBudgetOf(e.RATE_LIMIT_LINK_FAILURES),
        partnerWebhooks: rateBudgetOf(e.RATE_LIMIT_PARTNER_WEBHOOK_FAILURES),
      },
    },
    trustProxy: e.TRUST_PROXY,
    providers: {
      oura:
        e.OURA_CLIENT_ID && e.OURA_CLIENT_SECRET
          ? { clientId: e.OURA_CLIENT_ID, clientSecret: e.OURA_CLIENT_SECRET, authorizeUrl: e.OURA_AUTHORIZE_URL, apiUrl: e.OURA_API_URL }
          : null,
      dexcom:
        e.DEXCOM_CLIENT_ID && e.DEXCOM_CLIENT_SECRET && e.PUBLIC_API_URL
          ? {
              clientId: e.DEXCOM_CLIENT_ID,
              clientSecret: e.DEXCOM_CLIENT_SECRET,
              apiUrl: e.DEXCOM_API_URL,
              redirectUri: new URL('/v2/link/connect/dexcom_v3', e.PUBLIC_API_URL).toString(),
            }
          : null,
      whoop: e.WHOOP_CLIENT_ID && e.WHOOP_CLIENT_SECRET ? { clientId: e.WHOOP_CLIENT_ID, clientSecret: e.WHOOP_CLIENT_SECRET, apiUrl: e.WHOOP_API_URL } : null,
    },
    reminders: {
      bookAppointmentAfter: e.REMINDER_BOOK_APPOINTMENT_AFTER,
      appointmentBefore: e.REMINDER_APPOINTMENT_BEFORE,
      kitReturnAfter: e.REMINDER_KIT_RETURN_AFTER,
      sendAttempts: e.REMINDER_SEND_ATTEMPTS,
      sendRetryInterval: e.REMINDER_SEND_RETRY_INTERVAL,
    },
  };
}

/** Injection token for the parsed configuration. */
export const LABFLOW_CONFIG = Symbol('LABFLOW_CONFIG');
