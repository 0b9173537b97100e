import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { DataSource } from 'typeorm';

/**
 * CPU time per item of a bench phase: of a process of its own (the delivery process, the API), of this
 * process (outbox writes and the receiver), and of the Postgres backends serving the database —
 * read from /proc (Linux, Postgres on this machine; left out where /proc cannot tell). On a
 * shared machine rates move with everyone else's load, the CPU an item costs much less: it tells
 * whether a change made the work cheaper or the machine was just quieter.
 */

/** Clock ticks per second of /proc's CPU times (getconf CLK_TCK; 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses); null where /proc cannot tell. */
function statFields(pid: number | 'self'): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Clock ticks of CPU (user + system: proc(5)'s 14th and 15th fields) a process has used so far. */
export function cpuTicks(pid: number): number | null {
  const fields = statFields(pid);
  return fields === null ? null : Number(fields[11]) + Number(fields[12]);
}

/**
 * Clock ticks the finished children of this process have used so far (cutime + cstime): across
 * one autocannon run, the load generator's CPU, as no other child ends meanwhile.
 */
export function finishedChildrenTicks(): number | null {
  const fields = statFields('self');
  return fields === null ? null : Number(fields[13]) + Number(fields[14]);
}

/** Clock ticks so far of each Postgres backend of `db`'s database (null where /proc cannot tell). */
export async function backends(db: DataSource): Promise<Map<number, number | null>> {
  const rows: Array<{ pid: number }> = await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  return new Map(rows.map((row) => [row.pid, cpuTicks(row.pid)]));
}

/**
 * Clock ticks all CPUs of the machine have been busy so far (/proc/stat's first line: every field
 * but idle and iowait; guest time is already in user): whatever ran, this bench's processes or
 * not. On a machine doing nothing else, the whole cost of an item, the servers' background work
 * (PostgreSQL's WAL writer, Redis) included.
 */
export function machineBusyTicks(): number | null {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return user + nice + system + irq + softirq + steal;
  } catch {
    return null;
  }
}

export interface CpuMark {
  child: { pid: number; ticks: number | null };
  self: NodeJS.CpuUsage;
  postgres: Map<number, number | null>;
  machine: number | null;
  /** A server process of this machine the phase also uses (Redis), when the bench names one. */
  server: { pid: number; ticks: number | null } | null;
}

export async function cpuMark(db: DataSource, childPid: number, serverPid?: number): Promise<CpuMark> {
  return {
    child: { pid: childPid, ticks: cpuTicks(childPid) },
    self: process.cpuUsage(),
    postgres: await backends(db),
    machine: machineBusyTicks(),
    server: serverPid === undefined ? null : { pid: serverPid, ticks: cpuTicks(serverPid) },
  };
}

/** µs of CPU in `ticks` clock ticks. */
export const micros = (ticks: number) => (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;

/** CPU µs per item between two readings of a process's clock ticks; null when unknown. */
export const microsPerItem = (before: number | null, after: number | null, items: number) =>
  before === null || after === null || items === 0 ? null : Math.round(micros(after - before) / items);

/**
 * Clock ticks the backends of `before` and `after` (readings of `backends`) used between them, a
 * backend that appeared meanwhile counted from 0; null when /proc could not tell for one of them.
 */
export function backendTicksBetween(before: Map<number, number | null>, after: Map<number, number | null>): number | null {
  let ticks = 0;
  for (const [pid, now] of after) {
    const earlier = before.get(pid) ?? 0;
    if (now === null || earlier === null) return null;
    ticks += now - earlier;
  }
  return ticks;
}

/**
 * µs per item since `mark` of the child process, this process, Postgres, the server process the
 * mark names and the whole machine (null: unknown).
 */
export async function cpuPerItem(
  db: DataSource,
  mark: CpuMark,
  items: number,
): Promise<{ child: number | null; self: number; postgres: number | null; server: number | null; machine: number | null }> {
  const self = process.cpuUsage(mark.self);
  const postgres = backendTicksBetween(mark.postgres, await backends(db));
  return {
    child: microsPerItem(mark.child.ticks, cpuTicks(mark.child.pid), items),
    self: Math.round((self.user + self.system) / items),
    postgres: postgres !== null && postgres > 0 ? microsPerItem(0, postgres, items) : null,
    server: mark.server === null ? null : microsPerItem(mark.server.ticks, cpuTicks(mark.server.pid), items),
    machine: microsPerItem(mark.machine, machineBusyTicks(), items),
  };
}
