import { responseDto } from '../common/openapi';
import { z } from 'zod';

/** What the team routes answer (team.service.ts, team-metrics.service.ts), documented in /openapi.json. */

export class ClientFacingTeamResponse extends responseDto(
  z.object({
    id: z.string(),
    org_id: z.string(),
    name: z.string(),
    logo_url: z.string().optional(),
    testkits_texts_enabled: z.boolean(),
    lab_tests_patient_communication_enabled: z.boolean(),
    lab_tests_patient_sms_communication_enabled: z.boolean(),
    lab_tests_patient_email_communication_enabled: z.boolean(),
    delegated_flow: z.literal('order_and_results_with_vital_physician_network'),
  }),
) {}

export class PhysicianListResponse extends responseDto(z.array(z.object({ first_name: z.string(), last_name: z.string(), npi: z.string() }))) {}

export class TeamMetricsResponse extends responseDto(
  z.object({
    team_id: z.string(),
    number_of_users: z.number().int(),
    number_of_connected_sources: z.number().int(),
    number_of_errored_connected_sources: z.number().int(),
    number_of_connected_sources_by_week: z.array(z.object({ date: z.string(), value: z.number().int(), all: z.number().int() })),
    number_of_ordered_tests: z.number().int(),
  }),
) {}

export class SourcePriorityListResponse extends responseDto(
  z.array(z.object({ data_type: z.string(), source: z.object({ name: z.string(), slug: z.string(), logo: z.string() }), priority: z.number().int() })),
) {}
