import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { TeamPrincipal } from '../../auth/principal';
import type { ApiEnvironment, Region } from '../../tenancy/entities';
import { changedCount } from '../../common/write-statements';

export type FhirExportStatus = 'in_progress' | 'completed' | 'expired';

export interface FhirExportRow {
  id: string;
  team_id: string;
  environment: ApiEnvironment;
  region: Region;
  api_key_id: string | null;
  request_url: string;
  base_url: string;
  types: string[];
  since: Date | null;
  transaction_time: Date;
  status: FhirExportStatus;
  completed_at: Date | null;
  expires_at: Date | null;
}

export interface NewFhirExport {
  id: string;
  requestUrl: string;
  baseUrl: string;
  types: string[];
  since: Date | null;
  transactionTime: Date;
}

/** A written type of an export: its resources and parts. */
export interface FhirExportFile {
  type: string;
  count: number;
  parts: number;
}

type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

/** fhir_exports and their NDJSON parts (fhir_export_parts, sealed by the caller). */
@Injectable()
export class FhirExportsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(team: TeamPrincipal, row: NewFhirExport): Promise<void> {
    await this.db.query(
      `INSERT INTO fhir_exports (id, team_id, environment, api_key_id, request_url, base_url, types, since, transaction_time, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'in_progress')`,
      [row.id, team.teamId, team.environment, team.apiKeyId, row.requestUrl, row.baseUrl, row.types, row.since, row.transactionTime],
    );
  }

  /** The export with its team's region; scoped to the team when `scope` is given. */
  async find(id: string, scope?: Scope): Promise<FhirExportRow | null> {
    const values: unknown[] = [id];
    let scoped = '';
    if (scope) {
      values.push(scope.teamId, scope.environment);
      scoped = 'AND e.team_id = $2 AND e.environment = $3';
    }
    const [row] = await this.db.query(
      `SELECT e.id, e.team_id, e.environment, t.region, e.api_key_id, e.request_url, e.base_url, e.types, e.since, e.transaction_time,
              e.status, e.completed_at, e.expires_at
         FROM fhir_exports e JOIN teams t ON t.id = e.team_id
        WHERE e.id = $1 ${scoped}`,
      values,
    );
    return (row as FhirExportRow | undefined) ?? null;
  }

  /** Deletes the team's export and its parts; whether there was one. */
  async delete(id: string, scope: Scope): Promise<boolean> {
    const affected = await changedCount(this.db, `DELETE FROM fhir_exports WHERE id = $1 AND team_id = $2 AND environment = $3`, [
      id,
      scope.teamId,
      scope.environment,
    ]);
    return affected > 0;
  }

  /**
   * Writes (or rewrites) a part, only while its export is in progress: false when the export
   * is gone (cancelled) or no longer in progress.
   */
  async writePart(exportId: string, type: string, seq: number, count: number, contentEnc: Buffer): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO fhir_export_parts (export_id, type, seq, count, content_enc)
       SELECT id, $2, $3, $4, $5 FROM fhir_exports WHERE id = $1 AND status = 'in_progress'
       ON CONFLICT (export_id, type, seq) DO UPDATE SET count = EXCLUDED.count, content_enc = EXCLUDED.content_enc
       RETURNING seq`,
      [exportId, type, seq, count, contentEnc],
    );
    return rows.length > 0;
  }

  /** Removes parts of `type` numbered `fromSeq` and beyond (an earlier attempt's tail). */
  async pruneParts(exportId: string, type: string, fromSeq: number): Promise<void> {
    await this.db.query(`DELETE FROM fhir_export_parts WHERE export_id = $1 AND type = $2 AND seq >= $3`, [exportId, type, fromSeq]);
  }

  async complete(exportId: string, retentionMs: number): Promise<void> {
    await this.db.query(
      `UPDATE fhir_exports SET status = 'completed', completed_at = now(), expires_at = now() + $2 * interval '1 millisecond'
        WHERE id = $1 AND status = 'in_progress'`,
      [exportId, retentionMs],
    );
  }

  /** The files are deleted; the export stays, expired, so its status URL answers that it did. */
  async expire(exportId: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      await manager.query(`DELETE FROM fhir_export_parts WHERE export_id = $1`, [exportId]);
      await manager.query(`UPDATE fhir_exports SET status = 'expired' WHERE id = $1`, [exportId]);
    });
  }

  /** The export's written types: resources and parts of each. */
  async files(exportId: string): Promise<FhirExportFile[]> {
    const rows: Array<{ type: string; count: string; parts: string }> = await this.db.query(
      `SELECT type, sum(count)::bigint AS count, count(*) AS parts FROM fhir_export_parts WHERE export_id = $1 GROUP BY type`,
      [exportId],
    );
    return rows.map((row) => ({ type: row.type, count: Number(row.count), parts: Number(row.parts) }));
  }

  /** The types written so far while the export runs (for X-Progress). */
  async progress(exportId: string): Promise<{ types: number; resources: number }> {
    const [row] = await this.db.query(
      `SELECT count(DISTINCT type)::int AS types, coalesce(sum(count), 0)::bigint AS resources FROM fhir_export_parts WHERE export_id = $1`,
      [exportId],
    );
    return { types: row.types, resources: Number(row.resources) };
  }

  /** One part of a file, by number (a download reads them one at a time). */
  async part(exportId: string, type: string, seq: number): Promise<Buffer | null> {
    const [row] = await this.db.query(`SELECT content_enc FROM fhir_export_parts WHERE export_id = $1 AND type = $2 AND seq = $3`, [exportId, type, seq]);
    return row ? (row.content_enc as Buffer) : null;
  }
}
