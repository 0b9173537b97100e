import type { DataSource, EntityManager } from 'typeorm';
import { runPrepared } from '../db/prepared-statement';

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

/** Counts the seats held in every slot of some sites between two starts, grouped by site and start. */
const HELD_SEATS = {
  name: 'appointment_held_seats',
  text: `SELECT site, start_at, count(*)::int AS held
       FROM appointment_slot_reservations
      WHERE provider_slug = $1 AND site = ANY($2::text[]) AND start_at BETWEEN $3 AND $4
      GROUP BY site, start_at`,
};

/** HELD_SEATS' parameters for `slots` (null: no slot, nothing to count). */
function seatWindow(providerSlug: string, slots: readonly SeatSlot[]): [string, string[], Date, Date] | null {
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

/**
 * The seats labflow's appointments hold in a provider's slots: one per row of
 * `appointment_slot_reservations`. Booking inserts the row; cancelling (by the client, the order,
 * the provider or as a no-show) and rescheduling delete or move it, so every row there still
 * counts. The one place seats are counted: booking (under the slot's advisory lock), the sandbox
 * simulation's first free slot and availability (`heldSeatsNow`) all read it here.
 *
 * ONE query for any number of slots: every slot of `slots`' sites starting between the earliest
 * and the latest of their starts (so a whole 14-day availability window costs one round trip),
 * grouped by site and start.
 */
export async function heldSeats(manager: EntityManager, providerSlug: string, slots: readonly SeatSlot[]): Promise<HeldSeats> {
  const params = seatWindow(providerSlug, slots);
  if (!params) return HeldSeats.none;
  const rows: Array<{ site: string; start_at: Date; held: number }> = await manager.query(HELD_SEATS.text, params);
  return HeldSeats.of(rows);
}

/**
 * `heldSeats` outside any transaction, as a named statement (runPrepared: Postgres parses and
 * plans it once per connection): availability counts seats on every answer, cache hits included.
 */
export async function heldSeatsNow(db: DataSource, providerSlug: string, slots: readonly SeatSlot[]): Promise<HeldSeats> {
  const params = seatWindow(providerSlug, slots);
  if (!params) return HeldSeats.none;
  return HeldSeats.of(await runPrepared<{ site: string; start_at: Date; held: number }>(db, HELD_SEATS.name, HELD_SEATS.text, params));
}

/** Seats still free in a slot of `capacity` seats. */
export const seatsLeft = (capacity: number, held: number): number => Math.max(0, capacity - held);
