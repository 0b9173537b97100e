/**
 * The fault run's settings: what scripts/test-faults.sh passes in the environment (FAULTS_*),
 * the app's own configuration (ports, Temporal, database), and the seeded lab tests the orders use.
 */
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config';

export const ROOT = join(__dirname, '..', '..');
export const env = process.env;
export const config = loadConfig(env);
/** API replicas and workers (FAULTS_REPLICAS, 1; 2 for the replicas run): API i listens on API_PORT + 10·(i−1). */
export const REPLICAS = Number(env.FAULTS_REPLICAS ?? 1);
export const APIS = Array.from({ length: REPLICAS }, (_, index) => `http://127.0.0.1:${config.api.port + 10 * index}`);
export const API = APIS[0];
export const MANAGEMENT = `http://127.0.0.1:${config.management.port}`;
export const LOG_DIR = required('FAULTS_LOG_DIR');
export const TEMPORAL_ARGV = required('FAULTS_TEMPORAL_ARGV').split('\n').filter(Boolean);
export const TEMPORAL_PIDFILE = required('FAULTS_TEMPORAL_PIDFILE');
export const TEMPORAL_LOG = required('FAULTS_TEMPORAL_LOG');
/** The Temporal CLI (health checks, listings): the dev server's own binary, or beside the Temporal server. */
export const TEMPORAL_CLI = env.FAULTS_TEMPORAL_CLI ?? TEMPORAL_ARGV[0];
/** What runs Temporal: 'dev server' (the CLI's, SQLite) or 'server' (the Temporal server on PostgreSQL). */
export const TEMPORAL_KIND = env.LABFLOW_TEMPORAL === 'server' ? 'Temporal server' : 'Temporal dev server';
export const PER_METHOD = Number(env.FAULTS_ORDERS_PER_METHOD ?? 20);
/**
 * A bound on the wait, not the test of stranding (QUIET_S is: an order that cannot move stops all
 * progress): quiet, the run ends at ~190 s; beside CI's Jest it has ended at +306 s on one machine
 * and on a slower one had 94 of 96 orders done at +450 s, still completing every few seconds.
 */
export const DEADLINE_S = Number(env.FAULTS_DEADLINE_SECONDS ?? 600);
export const QUIET_S = Number(env.FAULTS_QUIET_SECONDS ?? 60);
export const SIMULATION_DELAY_S = 2;
/** Orders whose workflow is terminated before their simulation, for the reconcilers to heal (once). */
export const LOST_WORKFLOWS = Number(env.FAULTS_LOST_WORKFLOWS ?? 2);
/** Users whose Oura connections are imported (Link Migration) before the faults and whose history is pulled again under them. */
export const MIGRATED_USERS = Number(env.FAULTS_MIGRATED_USERS ?? 16);
/** How long a revoked key may still open a request on a replica (the key cache is invalidated by NOTIFY). */
export const REVOCATION_BOUND_MS = 5_000;
/** Share of webhook attempts the receiver answers with a 500 (by hash, so a rerun fails the same ones). */
export const RECEIVER_FAILURE_SHARE = 0.2;
export const WEBHOOK_PATH = '/labflow-faults';
/** What src/worker.ts logs once its Temporal worker polls. */
export const WORKER_POLLING = /worker polling task queue/;

/** Seeded global lab tests (src/db/migrations/1763790002001-lab-catalog-seed.ts; test/helpers/orders.ts). */
export const VITAMIN_D_KIT = '1ab7e570-0000-4000-8000-000000000002';
export const THYROID_AT_HOME_QUEST = '1ab7e570-0000-4000-8000-000000000007';
export const CMP_WALK_IN_QUEST = '1ab7e570-0000-4000-8000-000000000003';
/** src/db/migrations/1763790260000-on-site-collection-test.ts */
export const CMP_ON_SITE_QUEST = '1ab7e570-0000-4000-8000-00000000000c';

export const METHODS = ['testkit', 'at_home_phlebotomy', 'walk_in_test', 'on_site_collection'] as const;
export type Method = (typeof METHODS)[number];
/** On-site orders at an HL7 lab: the runner's scripted lab, and the sandbox HL7 lab (worker role sandbox-hl7-lab). */
export const HL7_GROUPS = ['hl7_lab', 'sandbox_hl7_lab'] as const;
export type Group = Method | (typeof HL7_GROUPS)[number];
/** FAULTS_HL7=0 leaves the HL7 labs out. */
export const HL7 = env.FAULTS_HL7 !== '0';
export const GROUPS: readonly Group[] = HL7 ? [...METHODS, ...HL7_GROUPS] : METHODS;
/** Orders per HL7 lab. */
export const HL7_ORDERS = Number(env.FAULTS_HL7_ORDERS ?? 8);
/** How long the HL7 labs are down from the moment their orders are placed (minutes in life, short here). */
export const HL7_LAB_DOWN_S = Number(env.FAULTS_HL7_LAB_DOWN_SECONDS ?? 30);
/** How long labflow's HL7 listener stays dead once killed while the lab sends. */
export const HL7_LISTENER_DOWN_S = Number(env.FAULTS_HL7_LISTENER_DOWN_SECONDS ?? 5);
/** Results the scripted lab sends for orders labflow does not have. */
export const HL7_STRAYS = 2;
export const HL7_LISTENER_PORT = Number(env.FAULTS_HL7_LISTENER_PORT ?? config.api.port + 4);
export const SANDBOX_HL7_LAB_PORT = Number(env.FAULTS_SANDBOX_HL7_LAB_PORT ?? config.api.port + 5);
export const HL7_LAB_PORT = Number(env.FAULTS_HL7_LAB_PORT ?? config.api.port + 6);
export const TERMINAL = new Set(['completed', 'cancelled', 'failed']);

function required(name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: run this through npm run test:faults (scripts/test-faults.sh)`);
  return value;
}
