import type { EntityManager } from 'typeorm';

/** A provider slot, as seats are counted: the site (PSC site code, or the zip of an at-home draw) and its start. */
export interface SeatSlot {
  site: string;
  /** ISO 8601 (any offset); compared as an instant. */
  start: string | Date;
}

const slotKey = (site: string, start: string | Date) => `${site}|${new Date(start).getTime()}`;

/** The seats labflow holds, per slot, in one provider's slots (from `heldSeats`). */
export class HeldSeats {
  static readonly none = new HeldSeats(new Map());

  private constructor(private readonly counts: ReadonlyMap<string, number>) {}

  static of(rows: ReadonlyArray<{ site: string; start_at: Date | string; held: number }>): HeldSeats {
    return new HeldSeats(new Map(rows.map((row) => [slotKey(row.site, row.start_at), row.held])));
  }

  /** Seats held in the slot (0 when none). */
  in(site: string, start: string | Date): number {
    return this.counts.get(slotKey(site, start)) ?? 0;
  }
}

/**
 * The seats labflow's appointments hold in a provider's slots: one per row of
 * `appointment_slot_reservations`. Booking inserts the row; cancelling (by the client, the order,
 * the provider or as a no-show) and rescheduling delete or move it, so every row there still
 * counts. The one place seats are counted: booking (under the slot's advisory lock), the sandbox
 * simulation's first free slot and availability all read it here.
 *
 * ONE query for any number of slots: every slot of `slots`' sites starting between the earliest
 * and the latest of their starts (so a whole 14-day availability window costs one round trip),
 * grouped by site and start.
 */
export async function heldSeats(manager: EntityManager, providerSlug: string, slots: readonly SeatSlot[]): Promise<HeldSeats> {
  if (slots.length === 0) return HeldSeats.none;
  const sites = [...new Set(slots.map((slot) => slot.site))];
  let from = Infinity;
  let to = -Infinity;
  for (const slot of slots) {
    const at = new Date(slot.start).getTime();
    if (at < from) from = at;
    if (at > to) to = at;
  }
  const rows: Array<{ site: string; start_at: Date; held: number }> = await manager.query(
    `SELECT site, start_at, count(*)::int AS held
       FROM appointment_slot_reservations
      WHERE provider_slug = $1 AND site = ANY($2::text[]) AND start_at BETWEEN $3 AND $4
      GROUP BY site, start_at`,
    [providerSlug, sites, new Date(from), new Date(to)],
  );
  return HeldSeats.of(rows);
}

/** Seats still free in a slot of `capacity` seats. */
export const seatsLeft = (capacity: number, held: number): number => Math.max(0, capacity - held);
