/**
 * The fault run's processes, supervised as a process manager would: the API replicas, the
 * management API, the workers, labflow's HL7 listener and the sandbox HL7 lab (node dist/src/*.js),
 * and the Temporal dev server or server. A process that exits on its own is started again after a
 * second; the faults kill them on purpose.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { log, sleep } from './log';
import {
  APIS,
  config,
  env,
  HL7,
  HL7_LISTENER_PORT,
  LOG_DIR,
  REPLICAS,
  ROOT,
  SANDBOX_HL7_LAB_PORT,
  TEMPORAL_ARGV,
  TEMPORAL_CLI,
  TEMPORAL_LOG,
  TEMPORAL_PIDFILE,
} from './settings';

/** Set once the run stops (its end or Ctrl-C): no process is started or restarted after it. */
export const stopping = { now: false };
/** What else shutdown() closes (the scripted HL7 lab, once it exists). */
const closers: Array<() => Promise<unknown> | undefined> = [];
export const onShutdown = (close: () => Promise<unknown> | undefined) => closers.push(close);

/** A node process of the stack, supervised: an exit nobody asked for is followed by a restart. */
export class Supervised {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private intentional = false;
  private logOffset = 0;
  unexpectedExits = 0;

  constructor(
    readonly name: string,
    private readonly argv: string[],
    private readonly childEnv: NodeJS.ProcessEnv,
    private readonly logFile: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Waits until the log, from where it stood at the last start, matches `pattern`. */
  async waitForLog(pattern: RegExp, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try {
        if (pattern.test(readFileSync(this.logFile, 'utf8').slice(this.logOffset))) return true;
      } catch {
        // not written yet
      }
      await sleep(250);
    }
    return false;
  }

  start(): void {
    if (stopping.now) return;
    this.intentional = false;
    const fd = openSync(this.logFile, 'a');
    this.logOffset = fstatSync(fd).size;
    const child = spawn(this.argv[0], this.argv.slice(1), {
      cwd: ROOT,
      env: this.childEnv,
      // Its own process group: a Ctrl-C reaches this runner, which stops the children in order.
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    this.child = child;
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = null;
        resolve();
        if (stopping.now || this.intentional) return;
        this.unexpectedExits += 1;
        log(`${this.name} exited on its own (${signal ?? `code ${code}`}); restarting it in 1 s (log ${this.logFile})`);
        setTimeout(() => {
          if (!stopping.now && !this.child && !this.intentional) this.start();
        }, 1000);
      });
    });
    child.once('error', (error) => log(`${this.name} could not start: ${error.message}`));
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.intentional = true;
    const child = this.child;
    if (!child?.pid) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
    await this.exited;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    this.intentional = true;
    if (!this.child) return;
    const done = this.exited;
    // Armed before the SIGTERM is awaited: a process that does not exit on it is killed.
    const timer = setTimeout(() => void this.kill('SIGKILL'), graceMs);
    await this.kill('SIGTERM').catch(() => undefined);
    await done;
    clearTimeout(timer);
  }
}

/** The environment of the Temporal CLI: the app's TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE would be read as CLI flags. */
export const cliEnv: NodeJS.ProcessEnv = { ...env };
delete cliEnv.TEMPORAL_ADDRESS;
delete cliEnv.TEMPORAL_NAMESPACE;

/**
 * The fault run's Temporal dev server: first started by scripts/test-faults.sh (pid in the pid
 * file), killed and started again here with the same command line and SQLite file.
 */
class TemporalServer {
  private own: Supervised | null = null;
  readonly address = config.temporal.address;

  private pidFromFile(): number | null {
    try {
      const pid = Number(readFileSync(TEMPORAL_PIDFILE, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  }

  async kill(): Promise<void> {
    if (this.own) {
      await this.own.kill('SIGKILL');
    } else {
      const pid = this.pidFromFile();
      if (pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    // Gone when its gRPC port no longer accepts connections.
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (await portOpen(config.temporal.address))) await sleep(100);
  }

  start(): void {
    if (stopping.now) return;
    this.own ??= new Supervised('temporal', TEMPORAL_ARGV, cliEnv, TEMPORAL_LOG);
    this.own.start();
    if (this.own.pid) writeFileSync(TEMPORAL_PIDFILE, `${this.own.pid}\n`);
  }

  async stop(): Promise<void> {
    await this.own?.stop(10_000);
  }

  healthy(): Promise<boolean> {
    return new Promise((resolve) => {
      execFile(TEMPORAL_CLI, ['operator', 'cluster', 'health', '--address', this.address, '--command-timeout', '3s'], { env: cliEnv }, (error) =>
        resolve(!error),
      );
    });
  }

  async waitHealthy(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await this.healthy()) return true;
      await sleep(500);
    }
    return false;
  }
}

function portOpen(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const nodeEnv = { ...env };
delete nodeEnv.FAULTS_TEMPORAL_ARGV;
delete nodeEnv.FAULTS_PROFILE_DIR;
/**
 * FAULTS_PROFILE_DIR: each node process writes CPU profiles there (<name>/*.cpuprofile, one per
 * thread) when it exits or is stopped at the end (a SIGKILLed one writes none), to find where a
 * run's CPU goes.
 */
const profileArgs = (name: string) =>
  env.FAULTS_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${join(env.FAULTS_PROFILE_DIR, name)}`, '--require', join(__dirname, 'profile-exit.cjs')] : [];
const nodeProcess = (name: string, script: string, extraEnv: NodeJS.ProcessEnv = {}) =>
  new Supervised(name, [process.execPath, '--enable-source-maps', ...profileArgs(name), script], { ...nodeEnv, ...extraEnv }, join(LOG_DIR, `${name}.log`));
/** `api` and `worker` alone; `api-1`, `api-2`... with replicas. */
const replicaName = (role: string, index: number) => (REPLICAS === 1 ? role : `${role}-${index + 1}`);
export const apiProcesses = APIS.map((_, index) =>
  nodeProcess(replicaName('api', index), 'dist/src/main.js', { API_PORT: String(config.api.port + 10 * index) }),
);
export const managementProcess = nodeProcess('management', 'dist/src/management.js');
export const workerProcesses = Array.from({ length: REPLICAS }, (_, index) => nodeProcess(replicaName('worker', index), 'dist/src/worker.js'));
// labflow's HL7 listener (worker role hl7) and the sandbox HL7 lab (worker role sandbox-hl7-lab), each a
// worker process of its own so the run can kill it alone; small pools (Postgres's 100 connections).
export const hl7ListenerProcess = nodeProcess('hl7-listener', 'dist/src/worker.js', {
  WORKER_ROLES: 'hl7',
  HL7_LISTENER_HOST: '127.0.0.1',
  HL7_LISTENER_PORT: String(HL7_LISTENER_PORT),
  // What it ACKed and had not handed over when killed is handed over again this soon after.
  HL7_REDELIVER_AFTER: '2s',
  DATABASE_POOL_MAX: '2',
});
export const sandboxHl7LabProcess = nodeProcess('sandbox-hl7-lab', 'dist/src/worker.js', {
  WORKER_ROLES: 'sandbox-hl7-lab',
  HL7_LISTENER_HOST: '127.0.0.1',
  SANDBOX_HL7_LAB_PORT: String(SANDBOX_HL7_LAB_PORT),
  SANDBOX_HL7_LAB_RESULTS_TO: `127.0.0.1:${HL7_LISTENER_PORT}`,
  SANDBOX_LAB_RESULT_DELAY: '2s',
  DATABASE_POOL_MAX: '2',
});
export const hl7Processes = HL7 ? [hl7ListenerProcess, sandboxHl7LabProcess] : [];
export const allProcesses = [...apiProcesses, managementProcess, ...workerProcesses, ...hl7Processes];
/** The API replica for the `index`th request of a batch: requests go round the replicas. */
export const apiFor = (index: number) => APIS[index % APIS.length];
export const temporalServer = new TemporalServer();

/** Resolves when the run is being stopped (Ctrl-C): the fault schedule and the wait end early. */
let abortRun: () => void = () => undefined;
const runAborted = new Promise<void>((resolve) => {
  abortRun = resolve;
});
export const sleepUnlessAborted = (ms: number) => Promise.race([sleep(ms), runAborted]);

export async function shutdown(): Promise<void> {
  if (stopping.now) return;
  stopping.now = true;
  abortRun();
  await Promise.allSettled([
    ...workerProcesses.map((worker) => worker.stop(20_000)),
    ...apiProcesses.map((api) => api.stop()),
    managementProcess.stop(),
    ...hl7Processes.map((proc) => proc.stop()),
    ...closers.map((close) => close()),
  ]);
  await temporalServer.stop();
}

/** Runs the Temporal CLI of the fault run; its output (or error) as text. */
export function temporalCli(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(TEMPORAL_CLI, args, { env: cliEnv, timeout: 20_000 }, (error, stdout, stderr) =>
      resolve(`${stdout}${stderr}${error && !stdout ? `(${error.message})` : ''}`.trimEnd()),
    );
  });
}
