/**
 * The main fault schedule, from t = 0: worker SIGKILL +3 s (back +10 s), Temporal SIGKILL +18 s
 * (back +24 s), Redis CLIENT PAUSE 12000 +32 s, API SIGKILL +48 s (back +50 s), worker SIGKILL
 * +55 s (back +60 s).
 */
import Redis from 'ioredis';
import { clock, log, sinceT0 } from './log';
import { apiProcesses, sleepUnlessAborted, stopping, temporalServer, workerProcesses } from './processes';
import { config, env, TEMPORAL_KIND } from './settings';

export interface FaultOutcome {
  fault: Fault;
  ok: boolean;
  /** Seconds from t = 0 when it was applied. */
  atActual: number;
  error?: string;
}

interface Fault {
  at: number;
  what: string;
  run(): Promise<void>;
}

// With replicas, the first worker and API die while the others carry on, and the last worker later.
const firstWorker = workerProcesses[0];
const lastWorker = workerProcesses[workerProcesses.length - 1];
const firstApi = apiProcesses[0];
const FAULTS: Fault[] = [
  { at: 3, what: `${firstWorker.name} SIGKILL`, run: () => firstWorker.kill('SIGKILL') },
  { at: 10, what: `${firstWorker.name} back`, run: async () => firstWorker.start() },
  { at: 18, what: `${TEMPORAL_KIND} SIGKILL`, run: () => temporalServer.kill() },
  {
    at: 24,
    what: `${TEMPORAL_KIND} back (${env.LABFLOW_TEMPORAL === 'server' ? 'same PostgreSQL databases' : 'same SQLite file'})`,
    run: async () => {
      temporalServer.start();
      const healthy = await temporalServer.waitHealthy(60_000);
      log(healthy ? `${TEMPORAL_KIND} healthy again` : `${TEMPORAL_KIND} NOT healthy 60 s after its restart`);
    },
  },
  {
    at: 32,
    what: 'Redis CLIENT PAUSE 12000',
    run: async () => {
      const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
      try {
        await redis.connect();
        const answer = await redis.call('CLIENT', 'PAUSE', '12000');
        if (answer !== 'OK') throw new Error(`CLIENT PAUSE answered ${String(answer)}`);
      } finally {
        redis.disconnect();
      }
    },
  },
  { at: 48, what: `${firstApi.name} SIGKILL`, run: () => firstApi.kill('SIGKILL') },
  { at: 50, what: `${firstApi.name} back`, run: async () => firstApi.start() },
  { at: 55, what: `${lastWorker.name} SIGKILL`, run: () => lastWorker.kill('SIGKILL') },
  { at: 60, what: `${lastWorker.name} back`, run: async () => lastWorker.start() },
];

/** Runs the schedule relative to t0; each fault in the background so a slow one delays no other. */
export async function runFaults(): Promise<FaultOutcome[]> {
  const outcomes: Array<Promise<FaultOutcome>> = [];
  for (const fault of FAULTS) {
    const wait = clock.t0 + fault.at * 1000 - Date.now();
    if (wait > 0) await sleepUnlessAborted(wait);
    if (stopping.now) break;
    const atActual = sinceT0();
    log(`fault: ${fault.what}`);
    outcomes.push(
      fault.run().then(
        () => ({ fault, ok: true, atActual }),
        (error: unknown) => {
          log(`fault "${fault.what}" failed: ${String(error)}`);
          return { fault, ok: false, atActual, error: String(error) };
        },
      ),
    );
  }
  return Promise.all(outcomes);
}
