import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { isoDate, repeatable, partnerEventId } from '../common/schemas';
import { PSC_SCHEDULING_LABS } from './providers/appointment-provider';

/** A US zip code: 5 digits, or ZIP+4 (`85004-1234`). */
const zipCode = z.string().regex(/^\d{5}(-\d{4})?$/, { message: 'zip_code must be a US zip code: 5 digits, or ZIP+4 (12345-6789)' });
const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** The US address of an at-home draw (Junction UsAddress, plus access_notes). */
const usAddress = z.object({
  first_line: z.string().trim().min(1).max(255),
  second_line: z.string().trim().max(255).optional(),
  city: z.string().trim().min(1).max(100),
  state: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, { message: 'state must be a 2-letter US state code' }),
  zip_code: zipCode,
  unit: z.string().trim().max(50).optional(),
  access_notes: z.string().max(1000).optional(),
});

export class PhlebotomyAvailabilityBody extends createZodDto(usAddress) {}

export class PhlebotomyAvailabilityQuery extends createZodDto(
  z.object({
    start_date: isoDate.optional(),
    allow_stale: queryBoolean.optional(),
  }),
) {}

export const PSC_RADII = ['10', '20', '25', '50', '100'] as const;

export class PscAvailabilityQuery extends createZodDto(
  z
    .object({
      lab: z.enum(PSC_SCHEDULING_LABS),
      start_date: isoDate.optional(),
      zip_code: zipCode.optional(),
      radius: z.enum(PSC_RADII).default('20'),
      /** Repeated (?site_codes=a&site_codes=b) or comma-separated. */
      site_codes: repeatable(z.string().max(64), { max: 50, commaSeparated: true }).optional(),
      allow_stale: queryBoolean.optional(),
    })
    .refine((query) => query.zip_code !== undefined || (query.site_codes?.length ?? 0) > 0, {
      message: 'Give zip_code or site_codes.',
      path: ['zip_code'],
    }),
) {}

// --- where patients can be served ---------------------------------------------------------------

/** Junction's LabLocationCapability. */
export const LAB_LOCATION_CAPABILITIES = ['stat', 'appointment_scheduling_via_junction', 'appointment_scheduling_with_lab'] as const;

export class AreaInfoQuery extends createZodDto(
  z.object({
    zip_code: zipCode,
    radius: z.enum(PSC_RADII).default('20'),
    lab: z.string().min(1).max(64).optional().describe('One lab (slug) to report on.'),
    labs: repeatable(z.string().min(1).max(64), { max: 50, commaSeparated: true })
      .optional()
      .describe('Labs (slugs) to report on; default: every lab with service centers.'),
    lab_account_id: z.uuid().optional(),
  }),
) {}

export class PscInfoQuery extends createZodDto(
  z.object({
    zip_code: zipCode,
    lab_id: z.coerce.number().int().min(1).max(2_147_483_647),
    radius: z.enum(PSC_RADII).default('20'),
    capabilities: repeatable(z.enum(LAB_LOCATION_CAPABILITIES), { max: 50, commaSeparated: true }).optional(),
    lab_account_id: z.uuid().optional(),
  }),
) {}

export class OrderPscInfoQuery extends createZodDto(
  z.object({
    radius: z.enum(PSC_RADII).default('20'),
    capabilities: repeatable(z.enum(LAB_LOCATION_CAPABILITIES), { max: 50, commaSeparated: true }).optional(),
  }),
) {}

// --- booking -----------------------------------------------------------------------------------

/** Free text passed to the provider with the appointment (Mar 2026); new on each reschedule. */
const appointmentNotes = z.string().max(1000).nullish();
const bookingKey = z.string().min(1).max(4096);

export class OrderAppointmentParams extends createZodDto(z.object({ order_id: z.uuid() })) {}

/** Junction's AppointmentBookingRequest (plus appointment_notes). */
export class BookAppointmentDto extends createZodDto(z.object({ booking_key: bookingKey, appointment_notes: appointmentNotes })) {}

/** Junction's AppointmentRescheduleRequest (plus appointment_notes). */
export class RescheduleAppointmentDto extends createZodDto(z.object({ booking_key: bookingKey, appointment_notes: appointmentNotes })) {}

/** Junction's RequestAppointmentRequest: provider-managed scheduling of an at-home draw. */
export class RequestAppointmentDto extends createZodDto(
  z.object({
    address: usAddress,
    provider: z.enum(['getlabs', 'phlebfinders', 'quest']),
    appointment_notes: appointmentNotes,
  }),
) {}

const cancellationReasonId = z.string().min(1).max(100);
const cancellationNotes = z.string().max(1000).nullish();

/** Junction's AppointmentCancelRequest (at-home). */
export class CancelAppointmentDto extends createZodDto(z.object({ cancellation_reason_id: cancellationReasonId, notes: cancellationNotes })) {}

/**
 * The walk-in (PSC) cancel body in either spelling: Junction's SDK sends this one as
 * `{cancellationReasonId, note}` (its VitalCoreClientsLabTestGetlabsSchemaAppointmentCancelRequest
 * has no wire names), the at-home one as `{cancellation_reason_id, notes}`.
 */
export class CancelPscAppointmentDto extends createZodDto(
  z
    .object({
      cancellation_reason_id: cancellationReasonId.optional(),
      cancellationReasonId: cancellationReasonId.optional(),
      notes: cancellationNotes,
      note: cancellationNotes,
    })
    .refine((body) => body.cancellation_reason_id !== undefined || body.cancellationReasonId !== undefined, {
      path: ['cancellation_reason_id'],
      message: 'Required',
    }),
) {}

/** A PSC cancel body as the at-home one (CancelAppointmentDto). */
export function cancelPscBody(body: CancelPscAppointmentDto): CancelAppointmentDto {
  return { cancellation_reason_id: (body.cancellation_reason_id ?? body.cancellationReasonId) as string, notes: body.notes ?? body.note };
}

/** Apr 2026 opt-in scheduling features of walk-in (PSC) bookings. */
export class PscBookingQuery extends createZodDto(
  z.object({
    /** `true`: answer at once with a `pending` appointment; the provider confirms it later. */
    async_confirmation: queryBoolean.optional(),
  }),
) {}

/** What an appointment provider reports to `POST /v3/webhooks/appointments/{provider}` (HMAC-signed). */
export class ProviderCallbackDto extends createZodDto(
  z.object({
    provider_id: z.string().min(1).max(200),
    status: z.enum(['confirmed', 'in_progress', 'completed', 'cancelled']),
    start_at: z.iso.datetime({ offset: true }).nullish(),
    end_at: z.iso.datetime({ offset: true }).nullish(),
    reason: z.string().max(1000).nullish(),
    event_id: partnerEventId,
  }),
) {}

export class ProviderParams extends createZodDto(z.object({ provider: z.string().regex(/^[a-z0-9_-]{1,40}$/) })) {}
