import { Injectable } from '@nestjs/common';
import type { Observation, Resource } from '@medplum/fhirtypes';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { PhiReadAudit } from '../common/phi-access-log';
import type { ParsedLabReportDataView } from '../lab-reports/lab-reports.dto';
import type { SearchPage } from './fhir-bundle';
import { FhirLabReportReads } from './fhir-lab-report-reads';
import type { Position } from './fhir-read-model';
import { type Cursor, type SearchQuery, tokenMatches, withinBounds } from './fhir-search';
import {
  parsedDiagnosticReport,
  parsedEffective,
  parsedObservations,
  parseParsedObservationId,
  parseParsedReportId,
  type ParsedReportRow,
} from './lab-report-mapping';
import { LAB_REPORT } from './lab-result-mapping';

/** Jobs read per round trip while a search fills a page (the code and date are sealed: judged after decryption). */
const JOB_BATCH = 50;

/** The cursor part of parsed lab reports (in the DiagnosticReport and Observation searches). */
export const PARSED_PART = 'lab-report';

/** The audit trail's name of a parsing job read. */
const AUDITED_AS = 'lab_report';

/**
 * Parsed lab reports (completed parsing jobs) as the FHIR searches show them: each job's sealed
 * data opened, audited as a PHI read, mapped to a DiagnosticReport and its result Observations,
 * and filtered by what only the data holds (code, date) after decryption, in batches until the
 * page is full. Their resources are final: only completed jobs are read.
 */
@Injectable()
export class FhirLabReports {
  constructor(
    private readonly reads: FhirLabReportReads,
    private readonly cipher: PhiCipher,
    private readonly audit: PhiReadAudit,
  ) {}

  /** A page of parsed reports as DiagnosticReports (and, with `_include=DiagnosticReport:result`, their Observations). */
  async reports(team: TeamPrincipal, query: SearchQuery): Promise<SearchPage> {
    const ids = query.ids?.map(parseParsedReportId).filter((id) => id !== null);
    if (ids?.length === 0 || (query.status && !query.status.includes('final')) || !tokenMatches(query.code, [LAB_REPORT])) return { matches: [], next: null };
    const included: Resource[] = [];
    const page = await this.collect(team, query, ids, (row, data) => {
      if (!withinBounds(query.date, new Date(parsedEffective(row, data)))) return [];
      return [parsedDiagnosticReport(row, data)];
    });
    if (query.includeResults) {
      for (const report of page.matches) {
        const jobId = parseParsedReportId(report.id!)!;
        included.push(...page.observationsOf.get(jobId)!);
      }
    }
    return { matches: page.matches, included, next: page.next };
  }

  /** A page of parsed reports' results as lab Observations. */
  async observations(team: TeamPrincipal, query: SearchQuery): Promise<SearchPage> {
    const ids = query.ids?.map(parseParsedObservationId).filter((id) => id !== null);
    if (ids?.length === 0 || (query.status && !query.status.includes('final'))) return { matches: [], next: null };
    const wanted = query.ids ? new Set(query.ids) : null;
    const page = await this.collect(
      team,
      query,
      ids?.map((id) => id.jobId),
      (row, data, observations) => {
        if (!withinBounds(query.date, new Date(parsedEffective(row, data)))) return [];
        return observations.filter((observation) => tokenMatches(query.code, observation.code.coding ?? []) && (!wanted || wanted.has(observation.id!)));
      },
      true,
    );
    return { matches: page.matches, next: page.next };
  }

  /**
   * Reads jobs from the query's cursor in batches, each job's resources chosen by `pick`, until
   * one more than the page holds is found. A cursor names the job and the index of the last
   * resource shown in it (`within`: a page may end inside a job's results).
   */
  private async collect(
    team: TeamPrincipal,
    query: SearchQuery,
    jobIds: string[] | undefined,
    pick: (row: ParsedReportRow, data: ParsedLabReportDataView, observations: Observation[]) => Resource[],
    within = false,
  ): Promise<{ matches: Resource[]; next: Cursor | null; observationsOf: Map<string, Observation[]> }> {
    const limit = query.count;
    const found: Array<{ resource: Resource; position: Cursor }> = [];
    const observationsOf = new Map<string, Observation[]>();
    let after: Position | undefined = query.cursor ? { at: query.cursor.at, id: query.cursor.id } : undefined;
    let inclusive = within && after !== undefined;
    for (;;) {
      const filter = { ids: jobIds, patient: query.patient, lastUpdated: query.lastUpdated, after, limit: JOB_BATCH };
      const rows = await this.reads.completedJobs(team, filter, inclusive);
      const batch = rows.slice(0, JOB_BATCH);
      const by = { teamId: team.teamId, apiKeyId: team.apiKeyId };
      await Promise.all(batch.map((row) => this.audit.record(by, AUDITED_AS, row.id)));
      for (const row of batch) {
        const data = this.cipher.decryptJson<ParsedLabReportDataView>(row.data_enc);
        const observations = parsedObservations(row, data);
        observationsOf.set(row.id, observations);
        pick(row, data, observations).forEach((resource) => {
          const n = within ? parseParsedObservationId(resource.id!)!.n : 0;
          if (inclusive && row.id === query.cursor!.id && n <= query.cursor!.n) return;
          found.push({ resource, position: { part: PARSED_PART, at: row.keyset_at, id: row.id, n } });
        });
        if (found.length > limit) break;
      }
      if (found.length > limit || rows.length <= JOB_BATCH) break;
      const last = batch[batch.length - 1];
      after = { at: last.keyset_at, id: last.id };
      inclusive = false;
    }
    const shown = found.slice(0, limit);
    return { matches: shown.map((entry) => entry.resource), next: found.length > limit ? shown[shown.length - 1].position : null, observationsOf };
  }
}
