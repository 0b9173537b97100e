import { Injectable } from '@nestjs/common';
import { PhiCipher } from '../common/crypto';
import type { AppointmentAddress, AppointmentStatus } from '../../workflows/contract';
import { RESCHEDULABLE } from '../../workflows/appointment/appointment-lifecycle';

/** An `appointments` row as Postgres returns it. */
export interface AppointmentRow {
  id: string;
  order_id: string;
  team_id: string;
  environment: 'sandbox' | 'production';
  user_id: string;
  n: number;
  type: 'phlebotomy' | 'patient_service_center';
  provider: string;
  provider_slug: string;
  provider_id: string;
  status: AppointmentStatus;
  site: string | null;
  location: { lng: number; lat: number } | null;
  address_enc: string;
  start_at: Date | null;
  end_at: Date | null;
  iana_timezone: string | null;
  appointment_notes_enc: string | null;
  cancellation_reason_id: string | null;
  async_confirmation: boolean;
  events: AppointmentEvent[];
  applied_changes: string[];
  created_at: Date;
  updated_at: Date;
}

/** Junction's appointment event status: `confirmed` is shown as `scheduled`. */
export type AppointmentEventStatus = 'pending' | 'reserved' | 'scheduled' | 'completed' | 'cancelled' | 'in_progress';

export interface AppointmentEvent {
  created_at: string;
  status: AppointmentEventStatus;
  data?: Record<string, unknown>;
}

/** Junction's ClientFacingAppointment (plus `appointment_notes`, Mar 2026). */
export interface AppointmentView {
  id: string;
  user_id: string;
  order_id: string;
  address: { first_line: string; second_line?: string; city: string; state: string; zip_code: string; unit?: string };
  location: { lng: number; lat: number };
  start_at?: string;
  end_at?: string;
  iana_timezone?: string;
  type: 'phlebotomy' | 'patient_service_center';
  provider: string;
  status: AppointmentStatus;
  provider_id: string;
  external_id?: string;
  can_reschedule: boolean;
  event_status: AppointmentEventStatus;
  event_data?: Record<string, unknown>;
  events: AppointmentEvent[];
  appointment_notes: string | null;
}

/** Junction's UsAddress of a stored address (empty optional parts left out). */
export function usAddressOf(address: AppointmentAddress): AppointmentView['address'] {
  return {
    first_line: address.first_line,
    ...(address.second_line ? { second_line: address.second_line } : {}),
    city: address.city,
    state: address.state,
    zip_code: address.zip_code,
    ...(address.unit ? { unit: address.unit } : {}),
  };
}

export function eventStatusOf(status: AppointmentStatus): AppointmentEventStatus {
  return status === 'confirmed' ? 'scheduled' : status;
}

/** Shapes appointment rows as the API shows them (Junction's ClientFacingAppointment); AppointmentsRepository reads them. */
@Injectable()
export class AppointmentViews {
  constructor(private readonly cipher: PhiCipher) {}

  view(row: AppointmentRow): AppointmentView {
    const address = this.cipher.decryptJson<AppointmentAddress>(row.address_enc);
    const latest = row.events.at(-1);
    return {
      id: row.id,
      user_id: row.user_id,
      order_id: row.order_id,
      address: usAddressOf(address),
      location: row.location ?? { lng: 0, lat: 0 },
      ...(row.start_at ? { start_at: new Date(row.start_at).toISOString() } : {}),
      ...(row.end_at ? { end_at: new Date(row.end_at).toISOString() } : {}),
      ...(row.iana_timezone ? { iana_timezone: row.iana_timezone } : {}),
      type: row.type,
      provider: row.provider,
      status: row.status,
      provider_id: row.provider_id,
      external_id: row.provider_id,
      can_reschedule: RESCHEDULABLE.includes(row.status),
      event_status: eventStatusOf(row.status),
      ...(latest?.data ? { event_data: latest.data } : {}),
      events: row.events,
      appointment_notes: row.appointment_notes_enc ? this.cipher.decryptJson<string>(row.appointment_notes_enc) : null,
    };
  }
}
