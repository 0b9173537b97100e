import { Inject, Injectable } from '@nestjs/common';
import type { FhirExportWriter } from '../../../activities/fhir-exports';
import type { FhirExportPosition, FhirExportStep } from '../../../workflows/contract';
import { PhiCipher } from '../../common/crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import { resourceJson } from '../fhir-bundle';
import type { DateBound, FhirResourceType } from '../fhir-search';
import { SEARCH_PARAMETERS } from '../fhir-search';
import { FhirService } from '../fhir.service';
import { FhirExportWearables, WEARABLE_PART_PAGES } from './fhir-export-wearables';
import { FhirExportsRepository } from './fhir-exports.repository';
import { sealPart } from './ndjson-parts';

/**
 * The export workflow's steps (activities/fhir-exports.ts): each page of a type is read as the
 * search reads it (FhirService.exportPage: the same statements, the same PHI read audit, under
 * the API key that asked), written as NDJSON lines and sealed into one part. `_since` and the
 * transaction time bound `_lastUpdated`.
 */
@Injectable()
export class FhirExportRunner implements FhirExportWriter {
  constructor(
    private readonly exports: FhirExportsRepository,
    private readonly fhir: FhirService,
    private readonly cipher: PhiCipher,
    private readonly wearables: FhirExportWearables,
    @Inject(LABFLOW_CONFIG) private readonly config: Pick<LabflowConfig, 'fhirExport'>,
  ) {}

  async writeParts(exportId: string, type: string, seq: number, position: FhirExportPosition | null, pages: number): Promise<FhirExportStep> {
    const row = await this.exports.find(exportId);
    if (!row || row.status !== 'in_progress') return { seq, position, gone: true };
    if (!Object.hasOwn(SEARCH_PARAMETERS, type)) throw new Error(`FHIR export ${exportId}: type ${type} is not served`);
    const team = { teamId: row.team_id, environment: row.environment, region: row.region, apiKeyId: row.api_key_id };
    // Up to and including the transaction time (at millisecond precision), and from _since.
    const lastUpdated: DateBound[] = [{ op: '<', at: new Date(row.transaction_time.getTime() + 1) }];
    if (row.since) lastUpdated.push({ op: '>=', at: row.since });
    const base = { api: row.base_url, fhir: `${row.base_url}/fhir/R4` };
    let cursor = position ?? undefined;
    for (let page = 0; page < pages; page++) {
      if (type === 'Observation' && cursor?.part === 'wearable') {
        // Wearable samples, most of a team's Observations, are streamed rather than paged (FhirExportWearables).
        const { pageSize } = this.config.fhirExport;
        const streamed = await this.wearables.write(exportId, team, lastUpdated, {
          seq,
          position: cursor,
          parts: pages - page,
          partRows: pageSize * WEARABLE_PART_PAGES,
        });
        // Samples left (the step's parts are written), or the export gone: the step ends here. Otherwise the
        // step goes on with what follows the samples (sleep), each part it wrote counted as a page.
        if (streamed.gone || streamed.position?.part === 'wearable') return streamed;
        page += Math.max(0, streamed.seq - seq - 1);
        ({ seq } = streamed);
        cursor = streamed.position ?? undefined;
        continue;
      }
      const found = await this.fhir.exportPage(
        team,
        type as FhirResourceType,
        { date: [], lastUpdated, count: this.config.fhirExport.pageSize, cursor, includeResults: false },
        base,
      );
      if (found.matches.length > 0) {
        const lines = found.matches.map((resource) => `${resourceJson(resource)}\n`).join('');
        const written = await this.exports.writePart(exportId, type, seq, found.matches.length, await sealPart(this.cipher, lines));
        if (!written) return { seq, position: cursor ?? null, gone: true };
        seq++;
      }
      if (!found.next) {
        await this.exports.pruneParts(exportId, type, seq);
        return { seq, position: null, gone: false };
      }
      cursor = found.next;
    }
    return { seq, position: cursor ?? null, gone: false };
  }

  complete(exportId: string, retentionMs: number): Promise<void> {
    return this.exports.complete(exportId, retentionMs);
  }

  expire(exportId: string): Promise<void> {
    return this.exports.expire(exportId);
  }
}
