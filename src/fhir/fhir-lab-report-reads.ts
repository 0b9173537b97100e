/**
 * The FHIR API's read of parsed lab reports: completed parsing jobs (lab_report_parsing_jobs),
 * scoped to the team and environment and to live users, by upload time then id, keyset-paged. A
 * job waiting for review, failed or rejected is not a report and is never read here. Beside
 * FhirReadModel (src/fhir/fhir-read-model.ts), whose Where it uses. It writes nothing.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DateBound } from './fhir-search';
import { AT, type Position, type Scope } from './fhir-read-model';
import { liveUsers, Where } from './fhir-where';
import type { ParsedReportRow } from './lab-report-mapping';

export interface ParsedReportFilter {
  /** Job ids. */
  ids?: string[];
  patient?: string;
  lastUpdated: DateBound[];
  after?: Position;
  limit: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class FhirLabReportReads {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** `inclusive`: the page starts at `after` itself (a report some of whose results the previous page showed). */
  async completedJobs(scope: Scope, filter: ParsedReportFilter, inclusive = false): Promise<ParsedReportRow[]> {
    const where = new Where();
    const join = liveUsers(where, scope, 'j.user_id');
    where.add(`j.team_id = ${where.param(scope.teamId)}::uuid AND j.environment = ${where.param(scope.environment)}`);
    where.add(`j.status = 'completed' AND j.data_enc IS NOT NULL`);
    if (filter.ids) where.add(`j.id = ANY(${where.param(filter.ids.filter((id) => UUID.test(id)))}::uuid[])`);
    if (filter.patient) where.add(`j.user_id = ${where.param(UUID.test(filter.patient) ? filter.patient : null)}::uuid`);
    where.bounds('j.updated_at', filter.lastUpdated).after('j.created_at', 'j.id', 'uuid', filter.after, inclusive);
    return this.db.query(
      `SELECT j.id, j.user_id, j.data_enc, j.created_at, j.updated_at, ${AT('j.created_at')} AS keyset_at
         FROM lab_report_parsing_jobs j ${join}
        WHERE ${where.sql()}
        ORDER BY j.created_at, j.id LIMIT ${where.param(filter.limit + 1)}`,
      where.values,
    );
  }
}
