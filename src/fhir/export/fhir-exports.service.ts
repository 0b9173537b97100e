import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { OperationOutcome } from '@medplum/fhirtypes';
import type { TeamPrincipal } from '../../auth/principal';
import { PhiCipher } from '../../common/crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import { FhirError } from '../fhir-errors';
import type { FhirBase } from '../fhir.service';
import { FhirExportWorkflows } from './fhir-export-workflows';
import { type FhirExportRow, FhirExportsRepository } from './fhir-exports.repository';
import type { ExportRequest } from './fhir-export-request';
import { openPart } from './ndjson-parts';

/** Steps write this many pages each before the workflow records where they stand. */
const PAGES_PER_STEP = 20;

/** The Bulk Data IG's completion manifest. */
export interface ExportManifest {
  transactionTime: string;
  request: string;
  requiresAccessToken: boolean;
  output: Array<{ type: string; url: string; count: number }>;
  error: Array<{ type: string; url: string }>;
}

export type ExportStatus = { state: 'in_progress'; progress: string } | { state: 'completed'; manifest: ExportManifest; expires: Date };

/**
 * FHIR Bulk Data export (Bulk Data Access IG, system-level for a team): the kick-off writes the
 * export and starts its workflow (fhir-export:<id>), the status reads the export's row and
 * parts, a download streams a file's parts one at a time, and DELETE removes the export with its
 * files and cancels the workflow. Every export belongs to the team (and environment) that asked:
 * any other's id is not found.
 */
@Injectable()
export class FhirExportsService {
  constructor(
    private readonly exports: FhirExportsRepository,
    private readonly workflows: FhirExportWorkflows,
    private readonly cipher: PhiCipher,
    @Inject(LABFLOW_CONFIG) private readonly config: Pick<LabflowConfig, 'fhirExport'>,
  ) {}

  /** Writes the export and starts its workflow; answers its id. */
  async kickOff(team: TeamPrincipal, request: ExportRequest, base: FhirBase, requestUrl: string): Promise<string> {
    const id = randomUUID();
    await this.exports.insert(team, { id, requestUrl, baseUrl: base.api, types: request.types, since: request.since, transactionTime: new Date() });
    try {
      await this.workflows.start(team.teamId, {
        exportId: id,
        types: request.types,
        pagesPerStep: PAGES_PER_STEP,
        retentionMs: this.config.fhirExport.retentionMs,
      });
    } catch (error) {
      await this.exports.delete(id, team);
      throw error;
    }
    return id;
  }

  async status(team: TeamPrincipal, id: string): Promise<ExportStatus> {
    const row = await this.found(team, id);
    if (row.status === 'in_progress') {
      const { types, resources } = await this.exports.progress(id);
      return { state: 'in_progress', progress: `${resources} resources written; ${types} of ${row.types.length} types started` };
    }
    const files = await this.exports.files(id);
    const fhirBase = `${row.base_url}/fhir/R4`;
    const output = row.types.flatMap((type) => {
      const file = files.find((written) => written.type === type);
      return file ? [{ type, url: `${fhirBase}/$export-file/${id}/${type}.ndjson`, count: file.count }] : [];
    });
    return {
      state: 'completed',
      manifest: { transactionTime: row.transaction_time.toISOString(), request: row.request_url, requiresAccessToken: true, output, error: [] },
      expires: row.expires_at!,
    };
  }

  /** Deletes the export with its files and cancels its workflow. */
  async cancel(team: TeamPrincipal, id: string): Promise<OperationOutcome> {
    if (!(await this.exports.delete(id, team))) throw notFound(id);
    await this.workflows.cancel(id);
    return {
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'information', code: 'informational', details: { text: `Export ${id} cancelled and its files deleted.` } }],
    };
  }

  /** A completed export's file of `type`: its parts in order, opened one at a time. */
  async file(team: TeamPrincipal, id: string, type: string): Promise<AsyncIterable<Buffer>> {
    const row = await this.found(team, id);
    if (row.status !== 'completed' || !row.types.includes(type)) throw new FhirError(404, 'not-found', `No file ${type}.ndjson in export ${id}.`);
    const first = await this.exports.part(id, type, 0);
    if (!first) throw new FhirError(404, 'not-found', `No file ${type}.ndjson in export ${id}.`);
    const { exports, cipher } = this;
    return (async function* parts() {
      let part: Buffer | null = first;
      for (let seq = 1; part; seq++) {
        yield await openPart(cipher, part);
        part = await exports.part(id, type, seq);
      }
    })();
  }

  /** The team's export; an expired one's files are gone, and so is its status. */
  private async found(team: TeamPrincipal, id: string): Promise<FhirExportRow> {
    const row = await this.exports.find(id, team);
    if (!row) throw notFound(id);
    if (row.status === 'expired') throw new FhirError(404, 'not-found', `Export ${id} expired; its files were deleted.`);
    return row;
  }
}

function notFound(id: string): FhirError {
  return new FhirError(404, 'not-found', `Export ${id} not found.`);
}
