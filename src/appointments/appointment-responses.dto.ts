import { responseDto } from '../common/openapi';
import { z } from 'zod';
import { BILLING_TYPES } from '../lab-tests/lab-catalog.entities';
import { LAB_LOCATION_CAPABILITIES } from './appointments.dto';

/** What the appointment routes answer (appointment-views.ts, the areas and availability services), documented in /openapi.json. */

const point = z.object({ lng: z.number(), lat: z.number() });
const capability = z.enum(LAB_LOCATION_CAPABILITIES);
const billingType = z.enum(BILLING_TYPES);

const appointmentStatus = z.enum(['pending', 'reserved', 'confirmed', 'in_progress', 'completed', 'cancelled']);
const eventStatus = z.enum(['pending', 'reserved', 'scheduled', 'completed', 'cancelled', 'in_progress']);

const appointment = z.object({
  id: z.string(),
  user_id: z.string(),
  order_id: z.string(),
  address: z.object({
    first_line: z.string(),
    second_line: z.string().optional(),
    city: z.string(),
    state: z.string(),
    zip_code: z.string(),
    unit: z.string().optional(),
  }),
  location: point,
  start_at: z.string().optional(),
  end_at: z.string().optional(),
  iana_timezone: z.string().optional(),
  type: z.enum(['phlebotomy', 'patient_service_center']),
  provider: z.string(),
  status: appointmentStatus,
  provider_id: z.string(),
  external_id: z.string().optional(),
  can_reschedule: z.boolean(),
  event_status: eventStatus,
  event_data: z.record(z.string(), z.unknown()).optional(),
  events: z.array(z.object({ created_at: z.string(), status: eventStatus, data: z.record(z.string(), z.unknown()).optional() })),
  appointment_notes: z.string().nullable(),
});

export class AppointmentResponse extends responseDto(appointment) {}

export class CancellationReasonListResponse extends responseDto(z.array(z.object({ id: z.string(), name: z.string(), is_refundable: z.boolean() }))) {}

export class AvailabilityResponse extends responseDto(
  z.object({
    slots: z.array(
      z.object({
        location: z
          .object({
            location: point,
            distance: z.number().optional(),
            address: z.object({ first_line: z.string(), second_line: z.string().optional(), city: z.string(), state: z.string(), zip_code: z.string() }),
            code: z.string(),
            name: z.string(),
            iana_timezone: z.string().optional(),
          })
          .optional(),
        date: z.string(),
        slots: z.array(
          z.object({
            booking_key: z.string(),
            start: z.string(),
            end: z.string(),
            expires_at: z.string(),
            price: z.number(),
            is_priority: z.boolean(),
            num_appointments_available: z.number().int(),
          }),
        ),
      }),
    ),
    timezone: z.string(),
  }),
) {}

const labLocation = z.object({
  metadata: z.object({
    name: z.string(),
    state: z.string(),
    city: z.string(),
    zip_code: z.string(),
    first_line: z.string(),
    second_line: z.string().optional(),
  }),
  distance: z.number(),
  site_code: z.string(),
  supported_bill_types: z.array(billingType),
  location: point,
  capabilities: z.array(capability),
});

export class PscInfoResponse extends responseDto(z.object({ lab_id: z.number().int(), slug: z.string(), patient_service_centers: z.array(labLocation) })) {}

export class AreaInfoResponse extends responseDto(
  z.object({
    zip_code: z.string(),
    phlebotomy: z.object({
      is_served: z.boolean(),
      providers: z.array(z.object({ name: z.string(), service_types: z.array(z.enum(['appointment-ready', 'appointment-request'])) })),
    }),
    central_labs: z.record(
      z.string(),
      z.object({
        patient_service_centers: z.object({
          appointment_with_vital: z.boolean(),
          within_radius: z.number(),
          radius: z.string(),
          capabilities: z.array(capability),
        }),
        supported_bill_types: z.array(billingType),
        lab_id: z.number().int(),
      }),
    ),
  }),
) {}

/** A provider's callback, as taken: `ignored` when it changes nothing. */
export class ProviderCallbackResponse extends responseDto(z.object({ status: z.enum(['accepted', 'ignored']), appointment_id: z.string() })) {}
