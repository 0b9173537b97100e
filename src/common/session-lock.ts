import type { DataSource } from 'typeorm';

/**
 * Lock ids of the roles that every worker process runs but only one may run at a time across
 * all replicas (PostgreSQL session advisory locks: pg_try_advisory_lock).
 */
export const SESSION_LOCKS = {
  /** The retention sweep (RetentionSweeper). */
  retentionSweep: 0x1abf_0001,
  /** A pass of the order reconciler (OrderReconciler). */
  orderReconciler: 0x1abf_0002,
  /** A pass of the connection reconciler (ConnectionReconciler). */
  connectionReconciler: 0x1abf_0003,
} as const;

/**
 * Runs `work` holding the session advisory lock `lockId` on a connection of its own, then
 * releases it; `{ran: false}`, without running `work`, when another process holds the lock. A
 * process that dies holding it loses it with its connection, so a crash never leaves it taken.
 */
export async function withSessionLock<T>(db: DataSource, lockId: number, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
  const runner = db.createQueryRunner();
  await runner.connect();
  try {
    const [{ locked }]: Array<{ locked: boolean }> = await runner.query(`SELECT pg_try_advisory_lock($1) AS locked`, [lockId]);
    if (!locked) return { ran: false };
    try {
      return { ran: true, value: await work() };
    } finally {
      await runner.query(`SELECT pg_advisory_unlock($1)`, [lockId]);
    }
  } finally {
    await runner.release();
  }
}
