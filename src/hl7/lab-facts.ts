import type { Hl7LabFact } from './hl7-orders';
import type { ObservationStatus, ReportedOrder } from './lab-report';

/** A message's fact for its order; `correction`: it corrects results (OBR-25 or an OBX-11 `C`). */
export interface LabFactOf {
  low: Hl7LabFact;
  detail: string | null;
  correction?: boolean;
}

/**
 * The lab fact a message carries for its order. Results decide first (OBR-25): every report final,
 * corrected or cannot-be-done completes the order (a correction after completion corrects its
 * stored results: OrderHl7Reports), anything else with observations is partial
 * results. Without results, ORC-5 says it (CM completed, A some results). A cancellation by the
 * lab (ORC-5 CA, ORC-1 OC) stops the order. IP, SC and the like: no fact.
 */
export function factOf(reported: ReadonlyArray<ReportedOrder<ObservationStatus>>): LabFactOf | null {
  const statuses = reported.map((order) => (order.orderStatus ?? '').toUpperCase());
  const controls = reported.map((order) => (order.orderControl ?? '').toUpperCase());
  if (statuses.includes('CA') || controls.includes('OC'))
    return { low: 'do_not_process', detail: reported.flatMap((order) => order.notes).join(' ') || 'Cancelled by the lab.' };
  const withResults = reported.filter((order) => order.observations.length > 0);
  if (withResults.length > 0) {
    const final = withResults.every((order) => ['F', 'C', 'X'].includes((order.resultStatus ?? '').toUpperCase()));
    const correction = withResults.some(
      (order) => (order.resultStatus ?? '').toUpperCase() === 'C' || order.observations.some((observation) => observation.status === 'C'),
    );
    return { low: final ? 'completed' : 'partial_results', detail: null, correction };
  }
  if (statuses.includes('CM') && !statuses.some((status) => status === 'IP' || status === 'A')) return { low: 'completed', detail: null };
  if (statuses.includes('A')) return { low: 'partial_results', detail: null };
  return null;
}

/** What the hand-off needs of a message to match it to its order and hand its fact over (stored beside its sealed body: none of it is PHI). */
export interface MatchKeys {
  /** Placer numbers that can name an order (UUIDs, lower case), in message order. */
  placers: string[];
  /** The lab's filler (accession) numbers, in message order. */
  fillers: string[];
  fact: LabFactOf | null;
}

export function matchKeysOf(reported: ReadonlyArray<ReportedOrder<ObservationStatus>>): MatchKeys {
  return {
    placers: reported.flatMap((order) => (order.placer && UUID.test(order.placer) ? [order.placer.toLowerCase()] : [])),
    fillers: reported.flatMap((order) => (order.filler ? [order.filler] : [])),
    fact: factOf(reported),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
