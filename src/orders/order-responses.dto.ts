import { responseDto } from '../common/openapi';
import { z } from 'zod';
import { labTest } from '../lab-tests/lab-tests.dto';

/** What the order routes answer (order-views.ts `OrderView`, `PostOrderResponse`), documented in /openapi.json. */

const orderEvent = z.object({ id: z.number().int(), created_at: z.string(), status: z.string(), status_detail: z.string().nullable() });

const shipment = z.object({
  id: z.string(),
  outbound_tracking_number: z.string().nullable(),
  outbound_tracking_url: z.string().nullable(),
  outbound_courier: z.string().nullable(),
  inbound_tracking_number: z.string().nullable(),
  inbound_tracking_url: z.string().nullable(),
  inbound_courier: z.string().nullable(),
  notes: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

const address = z.object({
  receiver_name: z.string().nullish(),
  first_line: z.string(),
  second_line: z.string().nullish(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  country: z.string(),
  phone_number: z.string().nullish(),
});

export const orderSchema = z.object({
  id: z.uuid(),
  team_id: z.uuid(),
  user_id: z.uuid(),
  patient_details: z.record(z.string(), z.unknown()).nullable(),
  patient_address: z.record(z.string(), z.unknown()).nullable(),
  lab_test: labTest,
  details: z.object({
    type: z.string(),
    data: z.object({
      id: z.string(),
      shipment: shipment.nullish(),
      appointment_id: z.string().optional(),
      created_at: z.string(),
      updated_at: z.string(),
    }),
  }),
  sample_id: z.string().nullable(),
  notes: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  events: z.array(orderEvent),
  status: z.string(),
  last_event: orderEvent.nullable(),
  physician: z
    .object({
      first_name: z.string(),
      last_name: z.string(),
      npi: z.string(),
      email: z.string().nullish(),
      licensed_states: z.array(z.string()).nullish(),
    })
    .nullable(),
  health_insurance_id: z.string().nullable(),
  requisition_form_url: z.string().nullable(),
  priority: z.boolean(),
  shipping_details: address.nullable(),
  activate_by: z.string().nullable(),
  passthrough: z.string().nullable(),
  billing_type: z.string().nullable(),
  icd_codes: z.array(z.string()).nullable(),
  has_abn: z.boolean(),
  interpretation: z.string().nullable(),
  has_missing_results: z.boolean().nullable(),
  expected_result_by_date: z.string().nullable(),
  worst_case_result_by_date: z.string().nullable(),
  origin: z.string(),
  order_transaction: z
    .object({
      id: z.string(),
      status: z.string(),
      orders: z.array(
        z.object({
          id: z.string(),
          created_at: z.string(),
          updated_at: z.string(),
          low_level_status: z.string(),
          low_level_status_created_at: z.string().nullable(),
          origin: z.string(),
        }),
      ),
    })
    .nullable(),
  clinical_notes: z.string().nullable(),
  lab_account_id: z.string(),
});

export class OrderResponse extends responseDto(orderSchema) {}

/** The answer of every order command (Junction's PostOrderResponse). */
export class PostOrderResponse extends responseDto(z.object({ order: orderSchema, status: z.literal('success'), message: z.string() })) {}

export class OrderPageResponse extends responseDto(
  z.object({ orders: z.array(orderSchema), total: z.number().int(), page: z.number().int(), size: z.number().int() }),
) {}

export class ResendEventsResponse extends responseDto(z.object({ order_ids: z.array(z.string()) })) {}

/** A partner's callback, as taken: `ignored` when it changes nothing. */
export class PartnerCallbackResponse extends responseDto(z.object({ status: z.enum(['accepted', 'ignored']), order_id: z.string() })) {}
