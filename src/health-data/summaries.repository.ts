import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';

/** A summary version to store (the latest replaces earlier ones with the same id). */
export interface SummaryWrite {
  id: string;
  userId: string;
  type: string;
  provider: string;
  sourceType: string;
  day: string | null;
  data: Record<string, unknown>;
}

export interface StoredSummary extends SummaryWrite {
  createdAt: Date;
  updatedAt: Date;
}

/** The SQL of `health_summaries` and `health_workout_streams`. */
@Injectable()
export class SummariesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Upserts summaries by id in one statement. An id stored for another user is left alone and
   * reported in `refused` (a sender cannot overwrite someone else's summary by reusing its id).
   */
  async upsert(manager: EntityManager, rows: SummaryWrite[]): Promise<{ stored: Array<StoredSummary & { inserted: boolean }>; refused: string[] }> {
    if (rows.length === 0) return { stored: [], refused: [] };
    const result: Array<Record<string, unknown>> = await manager.query(
      `INSERT INTO health_summaries AS s (id, user_id, type, provider, source_type, day, data)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::date[], $7::jsonb[])
       ON CONFLICT (id) DO UPDATE
         SET data = EXCLUDED.data, day = EXCLUDED.day, provider = EXCLUDED.provider, source_type = EXCLUDED.source_type,
             updated_at = clock_timestamp()
         WHERE s.user_id = EXCLUDED.user_id AND s.type = EXCLUDED.type
       RETURNING id, user_id, type, provider, source_type, to_char(day, 'YYYY-MM-DD') AS day, data, created_at, updated_at, xmax = 0 AS inserted`,
      [
        rows.map((row) => row.id),
        rows.map((row) => row.userId),
        rows.map((row) => row.type),
        rows.map((row) => row.provider),
        rows.map((row) => row.sourceType),
        rows.map((row) => row.day),
        rows.map((row) => JSON.stringify(row.data)),
      ],
    );
    const stored = result.map((row) => ({ ...toStored(row), inserted: row.inserted as boolean }));
    const storedIds = new Set(stored.map((row) => row.id));
    return { stored, refused: rows.filter((row) => !storedIds.has(row.id)).map((row) => row.id) };
  }

  /** A user's summaries of one type with `day` in [from, to] (null bounds: no limit), oldest first. */
  async list(userId: string, type: string, range: { from: string | null; to: string | null; provider?: string }): Promise<StoredSummary[]> {
    const rows: Array<Record<string, unknown>> = await this.db.query(
      `SELECT id, user_id, type, provider, source_type, to_char(day, 'YYYY-MM-DD') AS day, data, created_at, updated_at
         FROM health_summaries
        WHERE user_id = $1 AND type = $2
          AND ($3::date IS NULL OR day >= $3::date) AND ($4::date IS NULL OR day <= $4::date)
          AND ($5::text IS NULL OR provider = $5)
        ORDER BY day NULLS FIRST, created_at, id
        LIMIT 10000`,
      [userId, type, range.from, range.to, range.provider ?? null],
    );
    return rows.map(toStored);
  }

  /** One summary by id, with its owner (the caller checks the team). */
  async findById(id: string, type: string): Promise<StoredSummary | null> {
    const rows: Array<Record<string, unknown>> = await this.db.query(
      `SELECT id, user_id, type, provider, source_type, to_char(day, 'YYYY-MM-DD') AS day, data, created_at, updated_at
         FROM health_summaries WHERE id = $1 AND type = $2`,
      [id, type],
    );
    return rows[0] ? toStored(rows[0]) : null;
  }

  async saveWorkoutStreams(manager: EntityManager, streams: Array<{ workoutId: string; stream: unknown }>): Promise<void> {
    if (streams.length === 0) return;
    await manager.query(
      `INSERT INTO health_workout_streams (workout_id, stream)
       SELECT * FROM unnest($1::uuid[], $2::jsonb[])
       ON CONFLICT (workout_id) DO UPDATE SET stream = EXCLUDED.stream, updated_at = clock_timestamp()`,
      [streams.map((s) => s.workoutId), streams.map((s) => JSON.stringify(s.stream))],
    );
  }

  async workoutStream(workoutId: string): Promise<Record<string, unknown> | null> {
    const rows: Array<{ stream: Record<string, unknown> }> = await this.db.query(`SELECT stream FROM health_workout_streams WHERE workout_id = $1`, [
      workoutId,
    ]);
    return rows[0]?.stream ?? null;
  }

  /** Per type and provider: oldest and newest day and count, for introspection. */
  async statistics(
    userIds: string[],
    provider?: string,
  ): Promise<Array<{ userId: string; type: string; provider: string; oldest: Date; newest: Date; count: number }>> {
    const rows: Array<Record<string, unknown>> = await this.db.query(
      `SELECT user_id, type, provider, min(coalesce(day::timestamptz, created_at)) AS oldest,
              max(coalesce(day::timestamptz, created_at)) AS newest, count(*) AS count
         FROM health_summaries
        WHERE user_id = ANY($1::uuid[]) AND ($2::text IS NULL OR provider = $2)
        GROUP BY user_id, type, provider`,
      [userIds, provider ?? null],
    );
    return rows.map((row) => ({
      userId: row.user_id as string,
      type: row.type as string,
      provider: row.provider as string,
      oldest: row.oldest as Date,
      newest: row.newest as Date,
      count: Number(row.count),
    }));
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }
}

function toStored(row: Record<string, unknown>): StoredSummary {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    type: row.type as string,
    provider: row.provider as string,
    sourceType: row.source_type as string,
    day: (row.day as string | null) ?? null,
    data: row.data as Record<string, unknown>,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}
