import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { runPrepared } from '../common/prepared-statement';
import type { AppointmentRow } from './appointment-views';
import { HeldSeats, type SeatSlot, seatWindow } from './slot-seats';

/** Counts the seats held in every slot of some sites between two starts, grouped by site and start. */
const HELD_SEATS = {
  name: 'appointment_held_seats',
  text: `SELECT site, start_at, count(*)::int AS held
       FROM appointment_slot_reservations
      WHERE provider_slug = $1 AND site = ANY($2::text[]) AND start_at BETWEEN $3 AND $4
      GROUP BY site, start_at`,
};

/** A new `appointments` row (AppointmentsRepository.insert): its first event and 'create' as its first applied change. */
export interface NewAppointmentRow {
  id: string;
  orderId: string;
  teamId: string;
  environment: string;
  userId: string;
  n: number;
  type: AppointmentRow['type'];
  provider: string;
  providerSlug: string;
  providerId: string;
  status: AppointmentRow['status'];
  site: string | null;
  location: unknown;
  addressEnc: string;
  startAt: string | Date | null;
  endAt: string | Date | null;
  timezone: string | null;
  notesEnc: string | null;
  asyncConfirmation: boolean;
  events: unknown[];
  createdAt: Date;
}

/** What a change writes on an appointment row (AppointmentsRepository.applyChange). */
export interface AppointmentChangeRow {
  status: AppointmentRow['status'];
  startAt: Date | null;
  endAt: Date | null;
  notesEnc: string | null;
  cancellationReasonId: string | null;
  /** Appended to the row's events. */
  event: unknown;
  /** Appended to the row's applied changes (a retried change is recognised by it). */
  changeId: string;
}

/**
 * Intent-named queries over appointments and their slot seats (`appointments`,
 * `appointment_slot_reservations`). Writes take the caller's EntityManager: each appointment
 * write is one transaction (AppointmentLifecycleService).
 */
@Injectable()
export class AppointmentsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** The appointment; `lock`: locked for the rest of the caller's transaction. */
  async byId(id: string, manager: EntityManager = this.db.manager, lock = false): Promise<AppointmentRow | null> {
    const [row] = await manager.query(`SELECT * FROM appointments WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    return (row as AppointmentRow | undefined) ?? null;
  }

  /** The order's latest appointment. */
  async latestOf(orderId: string, manager: EntityManager = this.db.manager): Promise<AppointmentRow | null> {
    const [row] = await manager.query(`SELECT * FROM appointments WHERE order_id = $1 ORDER BY n DESC LIMIT 1`, [orderId]);
    return (row as AppointmentRow | undefined) ?? null;
  }

  async byProviderId(providerSlug: string, providerId: string): Promise<AppointmentRow | null> {
    const [row] = await this.db.query(`SELECT * FROM appointments WHERE provider_slug = $1 AND provider_id = $2`, [providerSlug, providerId]);
    return (row as AppointmentRow | undefined) ?? null;
  }

  async insert(manager: EntityManager, row: NewAppointmentRow): Promise<void> {
    await manager.query(
      `INSERT INTO appointments (id, order_id, team_id, environment, user_id, n, type, provider, provider_slug, provider_id, status, site,
         location, address_enc, start_at, end_at, iana_timezone, appointment_notes_enc, async_confirmation, events, applied_changes, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15, $16, $17, $18, $19, $20::jsonb, ARRAY['create'], $21, $21)`,
      [
        row.id,
        row.orderId,
        row.teamId,
        row.environment,
        row.userId,
        row.n,
        row.type,
        row.provider,
        row.providerSlug,
        row.providerId,
        row.status,
        row.site,
        JSON.stringify(row.location),
        row.addressEnc,
        row.startAt,
        row.endAt,
        row.timezone,
        row.notesEnc,
        row.asyncConfirmation,
        JSON.stringify(row.events),
        row.createdAt,
      ],
    );
  }

  async applyChange(manager: EntityManager, id: string, change: AppointmentChangeRow): Promise<void> {
    await manager.query(
      `UPDATE appointments SET status = $2, start_at = $3, end_at = $4, appointment_notes_enc = $5, cancellation_reason_id = $6,
         events = events || $7::jsonb, applied_changes = array_append(applied_changes, $8), updated_at = clock_timestamp()
       WHERE id = $1`,
      [id, change.status, change.startAt, change.endAt, change.notesEnc, change.cancellationReasonId, JSON.stringify([change.event]), change.changeId],
    );
  }

  /** Serialises the bookings of one slot until the caller's transaction ends (advisory lock on `slotKey`). */
  async lockSlot(manager: EntityManager, slotKey: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [slotKey]);
  }

  /** The appointment's seat: held in this slot (moved there when it held another). */
  async holdSeat(manager: EntityManager, appointmentId: string, providerSlug: string, site: string, start: Date): Promise<void> {
    await manager.query(
      `INSERT INTO appointment_slot_reservations (appointment_id, provider_slug, site, start_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (appointment_id) DO UPDATE SET provider_slug = EXCLUDED.provider_slug, site = EXCLUDED.site, start_at = EXCLUDED.start_at`,
      [appointmentId, providerSlug, site, start],
    );
  }

  /** Gives the appointment's seat back. */
  async releaseSeat(manager: EntityManager, appointmentId: string): Promise<void> {
    await manager.query(`DELETE FROM appointment_slot_reservations WHERE appointment_id = $1`, [appointmentId]);
  }

  /**
   * The seats labflow's appointments hold in a provider's slots: one per row of
   * `appointment_slot_reservations`. Booking inserts the row; cancelling (by the client, the order,
   * the provider or as a no-show) and rescheduling delete or move it, so every row there still
   * counts. The one place seats are counted: booking (under the slot's advisory lock), the sandbox
   * simulation's early free slot and availability (`heldSeatsNow`) all read it here.
   *
   * ONE query for any number of slots: every slot of `slots`' sites starting between the earliest
   * and the latest of their starts (so a whole 14-day availability window costs one round trip),
   * grouped by site and start.
   */
  async heldSeats(manager: EntityManager, providerSlug: string, slots: readonly SeatSlot[]): Promise<HeldSeats> {
    const params = seatWindow(providerSlug, slots);
    if (!params) return HeldSeats.none;
    const rows: Array<{ site: string; start_at: Date; held: number }> = await manager.query(HELD_SEATS.text, params);
    return HeldSeats.of(rows);
  }

  /**
   * `heldSeats` outside any transaction, as a named statement (runPrepared: Postgres parses and
   * plans it once per connection): availability counts seats on every answer, cache hits included.
   */
  async heldSeatsNow(providerSlug: string, slots: readonly SeatSlot[]): Promise<HeldSeats> {
    const params = seatWindow(providerSlug, slots);
    if (!params) return HeldSeats.none;
    return HeldSeats.of(await runPrepared<{ site: string; start_at: Date; held: number }>(this.db, HELD_SEATS.name, HELD_SEATS.text, params));
  }
}
