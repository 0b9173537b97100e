import type { DataSource } from 'typeorm';

/** A lock id of its own, so two workers never sweep at the same time (pg_try_advisory_lock). */
const SWEEP_LOCK = 0x1abf_0001;

/** The retention sweep's own SQL: the session lock that lets one worker sweep at a time. */
export class RetentionRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Runs `sweep` holding the sweep lock on a connection of its own (pg_try_advisory_lock), then
   * releases it; null, without running `sweep`, when another process holds the lock.
   */
  async withSweepLock<T>(sweep: () => Promise<T>): Promise<T | null> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }]: Array<{ locked: boolean }> = await runner.query(`SELECT pg_try_advisory_lock($1) AS locked`, [SWEEP_LOCK]);
      if (!locked) return null;
      try {
        return await sweep();
      } finally {
        await runner.query(`SELECT pg_advisory_unlock($1)`, [SWEEP_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }
}
