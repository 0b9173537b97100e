/**
 * The bulk export's read of wearable samples (src/fhir/export/): beside FhirReadModel, whose
 * statement helpers it uses, for the same reasons (one statement per page, scoped to the team and
 * its live users; writes nothing).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DateBound } from './fhir-search';
import { liveUsers, type Position, SAMPLE_COLUMNS, type SampleRow, type Scope, Where } from './fhir-read-model';

@Injectable()
export class FhirExportReadModel {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Wearable samples of the given resources in storage order, series by series (the bulk
   * export's traversal): one series at a time, each page an index range of the samples' own key
   * (series_id, ts), however many samples the team holds. (One statement over every series with
   * a `(series_id, ts) > position` bound makes Postgres walk the key from the position for each
   * later series, and the search's time order would sort them all.) The position's id is the
   * series, its time the sample's.
   */
  async samplesBySeries(scope: Scope, filter: { resources: string[]; lastUpdated: DateBound[]; after?: Position; limit: number }): Promise<SampleRow[]> {
    const rows: SampleRow[] = [];
    let seriesId: string | null = filter.after?.id ?? (await this.nextSeries(scope, filter.resources, null));
    let after = filter.after?.at;
    while (seriesId !== null) {
      rows.push(...(await this.seriesSamples(scope, seriesId, after, filter.lastUpdated, filter.limit + 1 - rows.length)));
      if (rows.length > filter.limit) break;
      seriesId = await this.nextSeries(scope, filter.resources, seriesId);
      after = undefined;
    }
    return rows;
  }

  /** The scope's next series of the resources after `afterId`, by id; null when none is left. */
  private async nextSeries(scope: Scope, resources: string[], afterId: string | null): Promise<string | null> {
    const where = new Where();
    const join = liveUsers(where, scope, 's.user_id');
    where.add(`s.resource = ANY(${where.param(resources)}::text[])`);
    if (afterId !== null) where.add(`s.id > ${where.param(afterId)}::bigint`);
    const [row] = await this.db.query(`SELECT s.id::text AS id FROM health_series s ${join} WHERE ${where.sql()} ORDER BY s.id LIMIT 1`, where.values);
    return row ? (row.id as string) : null;
  }

  /** Up to `limit` samples of one series of the scope after `afterAt`, by time. */
  private async seriesSamples(scope: Scope, seriesId: string, afterAt: string | undefined, lastUpdated: DateBound[], limit: number): Promise<SampleRow[]> {
    const where = new Where();
    const join = liveUsers(where, scope, 's.user_id');
    where.add(`t.series_id = ${where.param(seriesId)}::bigint AND s.id = t.series_id`);
    if (afterAt !== undefined) where.add(`t.ts > ${where.param(afterAt)}::timestamp AT TIME ZONE 'UTC'`);
    where.bounds('t.updated_at', lastUpdated);
    return this.db.query(
      `SELECT ${SAMPLE_COLUMNS}
         FROM health_series s ${join}
         JOIN health_samples t ON t.series_id = s.id
        WHERE ${where.sql()}
        ORDER BY t.ts LIMIT ${where.param(limit)}`,
      where.values,
    );
  }
}
