import { msToNumber } from '@temporalio/common/lib/time';
import { z } from 'zod';

/**
 * Every setting labflow reads from its environment, parsed and validated once at start-up.
 * A bad value stops the process with a message naming the variable (see `loadConfig`).
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

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/labflow'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379/0'),
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('labflow'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('labflow'),
  TEMPORAL_UI_URL: z.string().url().default('http://127.0.0.1:8233'),
  API_HOST: z.string().default('127.0.0.1'),
  API_PORT: port.default(8000),
  MANAGEMENT_PORT: port.default(8001),
  PUBLIC_API_URL: z.string().url().optional(),
  /** 32 random bytes, base64: encrypts PHI columns with AES-256-GCM. */
  PHI_ENCRYPTION_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, {
      message: 'must be 32 random bytes in base64 (openssl rand -base64 32)',
    }),
  /** 32 bytes, base64: encrypts Temporal payloads. Default: derived from PHI_ENCRYPTION_KEY. */
  TEMPORAL_PAYLOAD_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, { message: 'must be 32 random bytes in base64' })
    .optional(),
  /** Origins allowed to call the codec endpoint (the Temporal UI). */
  CODEC_CORS_ORIGINS: z.string().default('http://127.0.0.1:8233,http://localhost:8233'),
  /** Require a management key on the codec endpoint (always on in production). */
  CODEC_REQUIRE_KEY: boolFlag.optional(),
  /** How long a deleted user can still be restored (Junction: 7 days). */
  USER_DELETION_GRACE: duration.default('7d'),
  /** Largest JSON body accepted; larger ones answer 413. */
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug']).default('info'),
  /** Log every request line (off in tests to keep output readable). */
  LOG_REQUESTS: boolFlag.default(true),
});

export type Environment = z.infer<typeof envSchema>;

export interface LabflowConfig {
  env: Environment['NODE_ENV'];
  databaseUrl: string;
  redisUrl: string;
  temporal: { address: string; namespace: string; taskQueue: string; uiUrl: string };
  api: { host: string; port: number; publicUrl: string };
  management: { port: number };
  phiEncryptionKey: Buffer;
  temporalPayloadKey?: Buffer;
  codec: { corsOrigins: string[]; requireKey: boolean };
  userDeletionGrace: string;
  bodyLimitBytes: number;
  logLevel: Environment['LOG_LEVEL'];
  logRequests: boolean;
}

export class ConfigError extends Error {}

/** Parses the environment once; throws a ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): LabflowConfig {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`labflow configuration is invalid:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiUrl: e.TEMPORAL_UI_URL,
    },
    api: {
      host: e.API_HOST,
      port: e.API_PORT,
      publicUrl: e.PUBLIC_API_URL ?? `http://${e.API_HOST}:${e.API_PORT}`,
    },
    management: { port: e.MANAGEMENT_PORT },
    phiEncryptionKey: Buffer.from(e.PHI_ENCRYPTION_KEY, 'base64'),
    temporalPayloadKey: e.TEMPORAL_PAYLOAD_KEY ? Buffer.from(e.TEMPORAL_PAYLOAD_KEY, 'base64') : undefined,
    codec: {
      corsOrigins: e.CODEC_CORS_ORIGINS.split(',').map((origin) => origin.trim()).filter(Boolean),
      requireKey: e.CODEC_REQUIRE_KEY ?? e.NODE_ENV === 'production',
    },
    userDeletionGrace: e.USER_DELETION_GRACE,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    logLevel: e.LOG_LEVEL,
    logRequests: e.LOG_REQUESTS,
  };
}

/** Injection token for the parsed configuration. */
export const LABFLOW_CONFIG = Symbol('LABFLOW_CONFIG');
