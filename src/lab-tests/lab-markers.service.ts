import { Injectable } from '@nestjs/common';
import type { ValidationIssue } from '../common/errors';
import type { MarkerEntity } from './lab-catalog.entities';
import { LabCatalogRepository } from './lab-catalog.repository';
import { MarkerGraph } from './lab-catalog.views';

/** Where in a request a validation issue points. */
export type Loc = Array<string | number>;

export const unique = <T>(values: T[]) => [...new Set(values)];

/**
 * Markers as lab tests and order sets use them: the panels and LOINC codes around them, and
 * markers given by id or provider id resolved to orderable ones.
 */
@Injectable()
export class LabMarkersService {
  constructor(private readonly catalog: LabCatalogRepository) {}

  /** Panel members and LOINC codes around these markers. */
  async graph(markers: MarkerEntity[]): Promise<MarkerGraph> {
    const byId = new Map(markers.map((marker) => [marker.id, marker]));
    const members = new Map<number, number[]>();
    let panels = markers.filter((marker) => marker.type === 'panel').map((marker) => marker.id);
    // Panels could nest; follow members until no new panel appears.
    while (panels.length > 0) {
      const rows = await this.catalog.panelMembers(panels);
      for (const row of rows) members.set(row.panelId, [...(members.get(row.panelId) ?? []), row.memberId]);
      const missing = unique(rows.map((row) => row.memberId)).filter((id) => !byId.has(id));
      const loaded = await this.catalog.markersByIds(missing);
      for (const marker of loaded) byId.set(marker.id, marker);
      panels = loaded.filter((marker) => marker.type === 'panel' && !members.has(marker.id)).map((marker) => marker.id);
    }
    const loincIds = unique([...byId.values()].map((marker) => marker.loincId).filter((id): id is number => id !== null));
    const loincs = new Map((await this.catalog.loincsByIds(loincIds)).map((loinc) => [loinc.id, loinc]));
    return new MarkerGraph(byId, members, loincs);
  }

  /**
   * Markers by id and by provider id (each once, ids first), collecting an issue under `loc`
   * for each unknown or not orderable one. A provider id found at several labs is taken at
   * `preferLabId`, else at the lab of the other markers; otherwise it is ambiguous.
   */
  async resolveMarkers(markerIds: number[], providerIds: string[], loc: Loc, issues: ValidationIssue[], preferLabId?: number): Promise<MarkerEntity[]> {
    const byId = new Map((await this.catalog.markersByIds(unique(markerIds))).map((marker) => [marker.id, marker]));
    const found: MarkerEntity[] = [];
    const check = (marker: MarkerEntity, where: Loc, input: unknown) => {
      if (!marker.aLaCarteEnabled) {
        issues.push({
          loc: where,
          msg: `Marker ${marker.id} (${marker.name}) is reported with a panel and cannot be ordered on its own.`,
          type: 'value_error',
          input,
        });
      } else if (!found.some((other) => other.id === marker.id)) found.push(marker);
    };
    markerIds.forEach((id, index) => {
      const marker = byId.get(id);
      if (!marker) issues.push({ loc: [...loc, 'marker_ids', index], msg: `Marker ${id} not found.`, type: 'value_error', input: id });
      else check(marker, [...loc, 'marker_ids', index], id);
    });
    if (providerIds.length > 0) {
      const candidates = await this.catalog.markersByProviderIds(unique(providerIds));
      const labHint = preferLabId ?? (found.length > 0 ? found[0].labId : undefined);
      providerIds.forEach((providerId, index) => {
        const matches = candidates.filter((marker) => marker.providerId === providerId);
        const where = [...loc, 'provider_ids', index];
        const chosen = matches.length === 1 ? matches[0] : matches.find((marker) => marker.labId === labHint);
        if (matches.length === 0) issues.push({ loc: where, msg: `No marker has provider id ${providerId}.`, type: 'value_error', input: providerId });
        else if (!chosen) {
          issues.push({
            loc: where,
            msg: `Provider id ${providerId} exists at several labs; give marker_ids instead.`,
            type: 'value_error',
            input: providerId,
          });
        } else check(chosen, where, providerId);
      });
    }
    return found;
  }
}
