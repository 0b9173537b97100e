import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../common/openapi';
import { nullable, repeatable } from '../common/schemas';
import {
  BILLING_TYPES,
  COLLECTION_METHODS,
  DELEGATED_FLOWS,
  LAB_ACCOUNT_STATUSES,
  LAB_TEST_STATUSES,
  MARKER_TYPES,
  SAMPLE_TYPES,
} from './lab-catalog.entities';

/** A UUID, lower-cased so it compares equal to what Postgres returns. */
const uuid = z.uuid().toLowerCase();

/** `true`/`false` in a query string (z.coerce.boolean would read "false" as true). */
const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

const collectionMethod = z.enum(COLLECTION_METHODS);
const page = z.coerce.number().int().min(1).default(1);
const size = z.coerce.number().int().min(1).max(100).default(50);

// ---------------------------------------------------------------------------------------------
// Requests

const labTestFilters = {
  generation_method: z
    .enum(['auto', 'manual', 'all'])
    .default('manual')
    .describe('auto: lab tests generated from order sets; manual: curated and team-created tests; all: both.'),
  lab_slug: z.string().min(1).max(100).optional(),
  collection_method: collectionMethod.optional(),
  status: z.enum(LAB_TEST_STATUSES).optional(),
  marker_ids: repeatable(z.coerce.number().int()).optional().describe('Only tests that include every one of these markers.'),
  provider_ids: repeatable(z.string().min(1).max(100)).optional().describe('Only tests that include every one of these provider ids.'),
  name: z.string().max(255).optional().describe('Case-insensitive substring of the test name.'),
  order_key: z.enum(['price', 'created_at', 'updated_at']).optional(),
  order_direction: z.enum(['asc', 'desc']).default('asc'),
};

export class ListLabTestsQuery extends createZodDto(z.object(labTestFilters)) {}

export class PaginatedLabTestsQuery extends createZodDto(
  z.object({
    ...labTestFilters,
    lab_test_limit: z.coerce.number().int().min(1).max(500).default(100),
    next_cursor: z.string().max(200).optional(),
  }),
) {}

export class CreateLabTestDto extends createZodDto(
  z.object({
    marker_ids: z.array(z.number().int()).max(200).optional(),
    provider_ids: z.array(z.string().min(1).max(100)).max(200).optional(),
    name: z.string().trim().min(1).max(255),
    method: collectionMethod,
    description: z.string().max(2000),
    fasting: z.boolean().optional(),
  }),
) {}

export class UpdateLabTestDto extends createZodDto(
  z.object({
    name: z.string().trim().min(1).max(255).optional(),
    active: z.boolean().optional(),
  }),
) {}

export class LabTestIdParams extends createZodDto(z.object({ lab_test_id: uuid })) {}

export class LabProviderParams extends createZodDto(z.object({ lab_id: z.coerce.number().int(), provider_id: z.string().min(1).max(100) })) {}

export class LabAccountQuery extends createZodDto(z.object({ lab_account_id: uuid.optional() })) {}

export class MarkersQuery extends createZodDto(
  z.object({
    lab_id: repeatable(z.coerce.number().int()).optional(),
    'lab_id[]': repeatable(z.coerce.number().int()).optional().describe('lab_id, as the Junction docs spell it.'),
    lab_slug: z.string().min(1).max(100).optional(),
    name: z.string().max(255).optional().describe("Case-insensitive substring of the marker's name, or its lab test code (provider_id)."),
    a_la_carte_enabled: queryBoolean.optional(),
    lab_account_id: uuid.optional().describe("Only the markers of this lab account's lab."),
    page,
    size,
  }),
) {}

export class PageQuery extends createZodDto(z.object({ lab_account_id: uuid.optional(), page, size })) {}

export class OrderSetPageQuery extends createZodDto(z.object({ page, size })) {}

export const orderSetSchema = z.object({
  lab_test_ids: z.array(uuid).max(50).optional(),
  add_on: z
    .object({
      marker_ids: z.array(z.number().int()).max(200).optional(),
      provider_ids: z.array(z.string().min(1).max(100)).max(200).optional(),
    })
    .optional(),
  lab_account_id: uuid.optional(),
});
export type OrderSetInput = z.output<typeof orderSetSchema>;

export class OrderSetDto extends createZodDto(orderSetSchema) {}

export class LabAccountsQuery extends createZodDto(
  z.object({
    lab_account_id: uuid.optional(),
    // Statuses are lower-case on the wire; `PENDING` (as the interface spec spells it) is accepted.
    status: z.preprocess((value) => (typeof value === 'string' ? value.toLowerCase() : value), z.enum(LAB_ACCOUNT_STATUSES)).optional(),
  }),
) {}

// ---------------------------------------------------------------------------------------------
// Responses (Junction SDK shapes: ClientFacingLab, ClientFacingMarker[Complete], ClientFacingLabTest)

const lab = z.object({
  id: z.number().int(),
  slug: z.string(),
  name: z.string(),
  first_line_address: z.string(),
  city: z.string(),
  zipcode: z.string(),
  collection_methods: z.array(collectionMethod),
  sample_types: z.array(z.enum(SAMPLE_TYPES)),
});

const marker = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  description: nullable(z.string()),
  lab_id: z.number().int(),
  provider_id: z.string(),
  type: z.enum(MARKER_TYPES),
  unit: nullable(z.string()),
  price: z.string().describe('Price in USD, as a decimal string.'),
  a_la_carte_enabled: z.boolean(),
  common_tat_days: nullable(z.number().int()),
  worst_case_tat_days: nullable(z.number().int()),
  is_orderable: z.boolean(),
  aoe: z
    .object({
      questions: z.array(
        z.object({
          id: z.number().int(),
          required: z.boolean(),
          code: z.string(),
          value: z.string().describe('The question as the lab asks it.'),
          type: z.enum(['choice', 'text', 'numeric', 'multi_choice']),
          sequence: z.number().int(),
          answers: z.array(z.object({ id: z.number().int(), code: z.string(), value: z.string() })),
          constraint: z.string().optional(),
          default: z.string().optional(),
        }),
      ),
    })
    .optional()
    .describe("Ask-at-order-entry questions: answer them in an order's aoe_answers (question_id, answer: a choice's code or value)."),
});

const loinc = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  code: z.string(),
  unit: nullable(z.string()),
});

const expectedResult = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  lab_id: z.number().int(),
  provider_id: z.string(),
  required: z.boolean(),
  loinc: loinc.optional(),
});

const markerComplete = marker.extend({ expected_results: z.array(expectedResult) });

export const labTest = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().describe("What the test is for, as its creator described it (the spec lists it on an order's lab_test)."),
  sample_type: z.enum(SAMPLE_TYPES),
  method: collectionMethod,
  price: z.number(),
  is_active: z.boolean(),
  status: z.enum(LAB_TEST_STATUSES),
  fasting: z.boolean(),
  lab,
  markers: z.array(marker),
  is_delegated: z.boolean(),
  auto_generated: z.boolean(),
  has_collection_instructions: z.boolean(),
  common_tat_days: nullable(z.number().int()),
  worst_case_tat_days: nullable(z.number().int()),
});

const markersPage = z.object({
  markers: z.array(markerComplete),
  total: z.number().int(),
  page: z.number().int(),
  size: z.number().int(),
  pages: z.number().int(),
});

const labAccount = z.object({
  id: z.string(),
  lab: z.string().describe('Slug of the lab.'),
  status: z.enum(LAB_ACCOUNT_STATUSES),
  delegated_flow: z.enum(DELEGATED_FLOWS),
  provider_account_id: z.string(),
  account_name: z.string(),
  default_clinical_notes: nullable(z.string()),
  allowed_billing: z.array(z.enum(BILLING_TYPES)),
  team_id_allowlist: z.array(z.string()),
});

export class LabDto extends createZodDto(lab) {}
export class MarkerDto extends responseDto(marker) {}
export class MarkersPageDto extends responseDto(markersPage) {}
export class LabTestDto extends responseDto(labTest) {}
export class LabTestPageDto extends responseDto(z.object({ data: z.array(labTest), next_cursor: nullable(z.string()) })) {}
export class LabAccountListDto extends responseDto(z.object({ data: z.array(labAccount) })) {}

export type LabView = z.input<typeof lab>;
export type MarkerView = z.input<typeof marker>;
export type LoincView = z.input<typeof loinc>;
export type ExpectedResultView = z.input<typeof expectedResult>;
export type MarkerCompleteView = z.input<typeof markerComplete>;
export type MarkersPageView = z.input<typeof markersPage>;
export type LabTestView = z.input<typeof labTest>;
export type LabAccountView = z.input<typeof labAccount>;
