/**
 * The adapter every appointment provider (sandbox, getlabs, Quest PSC, …) implements. Adapters
 * return bookable slots; the AppointmentsService signs each slot into an opaque booking_key
 * (with its expires_at) and shapes the Junction response, so keys are always fresh even when
 * the adapter's answer comes from the availability cache.
 */

export type AppointmentKind = 'phlebotomy' | 'psc';

/** Exactly 14 calendar days starting at start_date (interface spec, rule 5). */
export const AVAILABILITY_DAYS = 14;

export interface UsAddress {
  first_line: string;
  second_line?: string;
  city: string;
  state: string;
  zip_code: string;
  access_notes?: string;
}

export type AvailabilityQuery =
  | { kind: 'phlebotomy'; address: UsAddress; startDate: string; days: number; nowMs: number }
  | {
      kind: 'psc';
      lab: string;
      zip?: string;
      /** Miles. */
      radius: number;
      siteCodes?: string[];
      startDate: string;
      days: number;
      nowMs: number;
    };

/** Junction's AppointmentLocation. */
export interface AppointmentLocation {
  location: { lng: number; lat: number };
  distance?: number;
  address: { first_line: string; second_line?: string; city: string; state: string; zip_code: string };
  code: string;
  name: string;
  iana_timezone?: string;
}

export interface ProviderSlot {
  /** ISO 8601 with the local offset. */
  start: string;
  end: string;
  price: number;
  is_priority: boolean;
  num_appointments_available: number;
}

export interface ProviderDay {
  /** YYYY-MM-DD, local to the site. */
  date: string;
  location?: AppointmentLocation;
  slots: ProviderSlot[];
}

export interface ProviderAvailability {
  /** The provider's slug (becomes part of the booking key). */
  provider: string;
  timezone: string;
  days: ProviderDay[];
}

export interface AppointmentProvider {
  readonly kind: AppointmentKind;
  readonly slug: string;
  /** null: no coverage for this address / no site in range (the API answers 404). */
  availability(query: AvailabilityQuery): Promise<ProviderAvailability | null>;
}
