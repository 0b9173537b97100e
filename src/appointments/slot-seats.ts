/** A provider slot, as seats are counted: the site (PSC site code, or the zip of an at-home draw) and its start. */
export interface SeatSlot {
  site: string;
  /** ISO 8601 (any offset), or epoch ms; compared as an instant. */
  start: string | Date | number;
}

const instant = (start: string | Date | number): number => (typeof start === 'number' ? start : new Date(start).getTime());

/** The seats labflow holds, per slot, in one provider's slots (from `heldSeats`). */
export class HeldSeats {
  static readonly none = new HeldSeats(new Map());

  /** Site → start (epoch ms) → seats held. */
  private constructor(private readonly counts: ReadonlyMap<string, ReadonlyMap<number, number>>) {}

  static of(rows: ReadonlyArray<{ site: string; start_at: Date | string; held: number }>): HeldSeats {
    const counts = new Map<string, Map<number, number>>();
    for (const row of rows) {
      let starts = counts.get(row.site);
      if (!starts) {
        starts = new Map();
        counts.set(row.site, starts);
      }
      starts.set(instant(row.start_at), row.held);
    }
    return new HeldSeats(counts);
  }

  /** Seats held in the slot (0 when none). */
  in(site: string, start: string | Date | number): number {
    if (this.counts.size === 0) return 0;
    return this.counts.get(site)?.get(instant(start)) ?? 0;
  }
}

/** The seat-count query's parameters for `slots` (AppointmentsRepository.heldSeats) (null: no slot, nothing to count). */
export function seatWindow(providerSlug: string, slots: readonly SeatSlot[]): [string, string[], Date, Date] | null {
  if (slots.length === 0) return null;
  const sites = [...new Set(slots.map((slot) => slot.site))];
  let from = Infinity;
  let to = -Infinity;
  for (const slot of slots) {
    const at = instant(slot.start);
    if (at < from) from = at;
    if (at > to) to = at;
  }
  return [providerSlug, sites, new Date(from), new Date(to)];
}

/** Seats still free in a slot of `capacity` seats. */
export const seatsLeft = (capacity: number, held: number): number => Math.max(0, capacity - held);
