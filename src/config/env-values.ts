import { msToNumber } from '@temporalio/common/lib/time';
import { z } from 'zod';

/**
 * What the environment schema (./environment.ts) is built of: the value types variables share
 * (durations, ports, keys, rate budgets), the worker roles, and the doc groups and `doc()` every
 * variable's description goes through (docs/configuration.md is generated from them).
 */

export const duration = z.string().refine(
  (value) => {
    try {
      return msToNumber(value as Parameters<typeof msToNumber>[0]) >= 0;
    } catch {
      return false;
    }
  },
  { message: 'must be a duration such as "500ms", "30s", "5m", "7d"' },
);

/** A whole number within [min, max], from its environment text. */
export const wholeNumber = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const port = wholeNumber(0, 65535);

export const boolFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** A comma-separated list of durations, e.g. "0s,5s,5m". */
export const durationList = z.string().refine((value) => value.split(',').every((part) => duration.safeParse(part.trim()).success), {
  message: 'must be a comma-separated list of durations such as "0s,5s,5m,30m"',
});

/** Reminder offsets: a list of durations, or `off` (or nothing) for none of that kind. */
export const offsetList = z
  .string()
  .trim()
  .refine((value) => value === '' || value === 'off' || durationList.safeParse(value).success, {
    message: 'must be a comma-separated list of durations such as "24h,72h,7d", or "off"',
  })
  .transform((value) => (value === '' || value === 'off' ? [] : value.split(',').map((part) => part.trim())));

/** 32 random bytes in base64 (a key). */
export const isKey = (value: string) => Buffer.from(value, 'base64').length === 32;

/** Keys, comma-separated (each as isKey); nothing for none. */
export const keyList = z
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
export const rateBudget = z
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
export const trustProxy = z
  .string()
  .trim()
  .transform((value): boolean | number | string[] => {
    if (value === 'true' || value === 'false') return value === 'true';
    if (/^\d+$/.test(value)) return Number(value);
    return value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
  });

/** What a worker process runs: Temporal workflows/activities, the outbox relay, webhook delivery, sandbox partner callbacks. */
export const WORKER_ROLES = [
  'temporal',
  'relay',
  'delivery',
  'sandbox',
  'retention',
  'lab-reports',
  'continuous-queries',
  'hl7',
  'hl7-listener',
  'hl7-handoff',
  'sandbox-hl7-lab',
] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];
/** Roles a worker runs only when WORKER_ROLES names them: each listens on a port of its own. */
export const OPT_IN_WORKER_ROLES: readonly WorkerRole[] = ['hl7', 'hl7-listener', 'hl7-handoff', 'sandbox-hl7-lab'];
/** `hl7` split in two for processes of their own (a listener that only stores and ACKs; the hand-off to orders): not for a Deployment of their own as well as `hl7`. */
export const HL7_SPLIT_ROLES: readonly WorkerRole[] = ['hl7-listener', 'hl7-handoff'];

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
export type ConfigGroup = keyof typeof CONFIG_GROUPS;

/** What docs/configuration.md says of a variable. `unset`: what an optional one does without a value. */
type ConfigDoc = {
  group: ConfigGroup;
  description: string;
  unset?: string;
};

export const doc = (group: ConfigGroup, description: string, unset?: string): ConfigDoc =>
  unset === undefined ? { group, description } : { group, description, unset };
