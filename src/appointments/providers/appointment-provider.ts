/**
 * The adapter every appointment provider (sandbox, getlabs, Quest PSC, …) implements. Adapters
 * return bookable slots; the AppointmentAvailabilityService signs each slot into an opaque booking_key
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
  /**
   * At-home phlebotomy: the coverage area the slots belong to (the sandbox's: the 5-digit zip), so
   * that a slot's seats are counted once per area, whatever zip form the patient gave. Service
   * center days name their site in `location.code` instead.
   */
  area?: string;
  days: ProviderDay[];
}

export interface AppointmentProvider {
  readonly kind: AppointmentKind;
  readonly slug: string;
  /** The public provider name appointments show (Junction's enum: getlabs, phlebfinders, quest). */
  readonly publicName: string;
  /** null: no coverage for this address / no site in range (the API answers 404). */
  availability(query: AvailabilityQuery): Promise<ProviderAvailability | null>;
  /** Where the provider works, without slots (area info, PSC info). */
  serviceArea(query: AreaQuery): Promise<ServiceArea>;
}

export interface AreaQuery {
  /** 5 digits or ZIP+4. */
  zip: string;
  /** Miles. */
  radius: number;
  /** The lab whose service centers are asked about (slug). */
  lab: string;
}

/** What a provider offers around a zip code; nothing at all when it does not know the zip. */
export interface ServiceArea {
  /** At-home draws in the zip (phlebotomy providers). */
  drawsAtHome: boolean;
  /** The lab's service centers within the radius, nearest first, `distance` in miles (PSC providers). */
  sites: AppointmentLocation[];
}

// ---------------------------------------------------------------------------------------------
// Booking. The appointment activities call these; each must be idempotent per appointment id
// (a retried activity books once). Providers report later changes (a confirmation, a draw in
// progress or done, their own cancellation) through labflow's provider callback endpoint,
// `POST /v3/webhooks/appointments/<provider slug>`.

/** One cancellation reason (Junction's ClientFacingAppointmentCancellationReason). */
export interface CancellationReason {
  id: string;
  name: string;
  is_refundable: boolean;
}

export interface ProviderSlotRef {
  /** PSC site code, or the coverage area for at-home phlebotomy (ProviderAvailability.area). */
  site: string;
  start: string;
  end: string;
}

export interface ProviderBookingRequest {
  appointmentId: string;
  /** null: provider-managed scheduling (`.../request`): the provider picks the time and reports it. */
  slot: ProviderSlotRef | null;
  /** The patient's address (at-home phlebotomy); null for a service center visit. */
  address: UsAddress | null;
  notes: string | null;
  /** Apr 2026 opt-in: answer `pending` now and confirm later through the callback endpoint. */
  asyncConfirmation: boolean;
  /** Production orders get the provider's later reports (draw in progress, completed) on their own. */
  environment: 'sandbox' | 'production';
}

export interface ProviderBooking {
  /** The provider's id of the appointment (Junction's provider_id / external_id). */
  providerId: string;
  status: 'confirmed' | 'pending';
  /** Where it takes place: the service center's or the patient's address. */
  address: UsAddress;
  location: { lng: number; lat: number };
  timezone: string;
  site: string | null;
}

export interface AppointmentBookingProvider {
  /** The public provider name appointments show (Junction's enum: getlabs, phlebfinders, quest). */
  readonly publicName: string;
  /** Seats per slot: how many appointments one slot takes. */
  capacity(site: string): number;
  book(request: ProviderBookingRequest): Promise<ProviderBooking>;
  reschedule(request: {
    appointmentId: string;
    providerId: string;
    slot: ProviderSlotRef;
    notes: string | null;
    asyncConfirmation: boolean;
    environment: 'sandbox' | 'production';
  }): Promise<{ status: 'confirmed' | 'pending' }>;
  /** `notes`: the client's message to the provider about the cancellation (`notes` of the cancel request). */
  cancel(request: { appointmentId: string; providerId: string; cancellationReasonId: string | null; notes: string | null }): Promise<void>;
  cancellationReasons(): CancellationReason[];
}

/**
 * Labs whose walk-in orders can book a service-center visit through labflow: a PSC is the lab's
 * own site, so a Labcorp sample must not be drawn at a Quest center. Junction schedules Quest
 * only (AppointmentPscLabs); other labs' walk-in patients just walk in, and their orders move on
 * with the lab's events. PSC availability takes these as its `lab`; booking checks the order's lab.
 */
export const PSC_SCHEDULING_LABS = ['quest'] as const;
