import type { ResultMarker } from '../adapters/lab/lab.adapter';
import type { MarkerEntity } from '../lab-tests/lab-catalog.entities';
import type { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { MarkerGraph } from '../lab-tests/lab-catalog.views';
import type { LabTestsRepository } from '../lab-tests/lab-tests.repository';
import type { OrderEntity } from './order.entities';

/**
 * The biomarkers an order's lab test reports (panels expanded, each with its panel), with their
 * LOINC codes: what a lab's results are mapped to, when they are collected, read while partial,
 * or corrected.
 */
export async function biomarkersOfOrder(
  tests: LabTestsRepository,
  catalog: LabCatalogRepository,
  order: Pick<OrderEntity, 'labTestId'>,
): Promise<ResultMarker[]> {
  const markerIds = (await tests.markerIdsOf([order.labTestId])).get(order.labTestId) ?? [];
  const markers = new Map<number, MarkerEntity>();
  const members = new Map<number, number[]>();
  let frontier = markerIds;
  while (frontier.length > 0) {
    const found = await catalog.markersByIds(frontier.filter((id) => !markers.has(id)));
    for (const marker of found) markers.set(marker.id, marker);
    const panels = found.filter((marker) => marker.type === 'panel').map((marker) => marker.id);
    const rows = await catalog.panelMembers(panels);
    for (const row of rows) members.set(row.panelId, [...(members.get(row.panelId) ?? []), row.memberId]);
    frontier = rows.map((row) => row.memberId).filter((id) => !markers.has(id));
  }
  const loincIds = [...markers.values()].flatMap((marker) => (marker.loincId === null ? [] : [marker.loincId]));
  const loincs = new Map((await catalog.loincsByIds(loincIds)).map((loinc) => [loinc.id, loinc]));
  const graph = new MarkerGraph(markers, members, loincs);
  const reported = new Map<number, ResultMarker>();
  for (const root of markerIds.flatMap((id) => (markers.has(id) ? [markers.get(id)!] : []))) {
    const parent = root.type === 'panel' ? { id: root.id, name: root.name, slug: root.slug, providerId: root.providerId } : null;
    for (const marker of graph.biomarkersOf(root)) {
      if (reported.has(marker.id)) continue;
      const loinc = graph.loincOf(marker);
      reported.set(marker.id, { ...marker, loinc: loinc ? { code: loinc.code, slug: loinc.slug } : null, parent });
    }
  }
  return [...reported.values()];
}
