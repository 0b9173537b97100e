import { readFileSync } from 'node:fs';
import type { DataSource } from 'typeorm';

/**
 * CPU time per item of a bench phase, of this process and of the Postgres backends serving its
 * database (read from /proc: Linux, Postgres on this machine; absent otherwise). On a shared
 * machine the rates move with everyone else's load, the CPU an item costs much less: it tells
 * whether a change made the work cheaper or the machine was just quieter.
 */
const CLOCK_TICKS_PER_SECOND = 100;

function cpuTicks(pid: number): number | null {
  try {
    // Fields after the command name: utime is the 12th, stime the 13th (proc(5)).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

async function backends(db: DataSource): Promise<Map<number, number | null>> {
  const rows: Array<{ pid: number }> = await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  return new Map(rows.map((row) => [row.pid, cpuTicks(row.pid)]));
}

export interface CpuMark {
  node: NodeJS.CpuUsage;
  postgres: Map<number, number | null>;
}

export async function cpuMark(db: DataSource): Promise<CpuMark> {
  return { node: process.cpuUsage(), postgres: await backends(db) };
}

/** `node 123 µs, postgres 45 µs` per item since `mark` (postgres left out when /proc cannot tell). */
export async function cpuPerItem(db: DataSource, mark: CpuMark, items: number): Promise<string> {
  const node = process.cpuUsage(mark.node);
  const parts = [`node ${Math.round((node.user + node.system) / items)} µs`];
  let ticks = 0;
  let known = true;
  for (const [pid, now] of await backends(db)) {
    const before = mark.postgres.get(pid) ?? 0;
    if (now === null || before === null) known = false;
    else ticks += now - before;
  }
  if (known && ticks > 0) parts.push(`postgres ${Math.round((ticks * 1e6) / CLOCK_TICKS_PER_SECOND / items)} µs`);
  return parts.join(', ');
}
