import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { nextCursorParam } from '../../common/keyset-cursor';
import { regionParam, uuidParam } from '../common/params';
import { repeatable } from '../../common/schemas';

/** The team-name filter, exactly as the spec gives it (at most 80 characters). */
export const TEAM_SEARCH_PATTERN = /^[A-Za-zÀ-ÖØ-öø-ÿ0-9(),/:'|&_\-\s’]{0,80}$/;

const teamName = z.string().trim().min(1).max(255);
const integrationTeamId = z.string().min(1).max(256);
const logoUrl = z.url({ protocol: /^https?$/ }).max(2048);

const brandInformation = z
  .object({
    company_name: z.string().trim().min(1).max(255),
    support_email: z.email().max(320).optional(),
    /** The patient portal's accent colour, #RRGGBB (darkened there when too light to read on white). */
    primary_color: z
      .string()
      .regex(/^#[0-9A-Fa-f]{6}$/, { message: 'must be a colour as #RRGGBB' })
      .optional(),
    support_phone: z
      .string()
      .regex(/^\+?[0-9 ().-]{5,32}$/, { message: 'must be a phone number' })
      .optional(),
    support_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
  })
  .catchall(z.string().max(1000).nullable())
  .refine((value) => Object.keys(value).length <= 20, { message: 'At most 20 brand_information fields.' });

/** Per-environment settings: flat `snake_case` keys with scalar values. */
const environmentSettings = z
  .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]))
  .refine((value) => Object.keys(value).length <= 50, { message: 'At most 50 settings per environment.' });

export class OrgTeamParams extends createZodDto(z.object({ org_id: uuidParam, team_id: uuidParam })) {}

export class ListTeamsQuery extends createZodDto(
  z.object({
    team_id: uuidParam.optional(),
    region: repeatable(regionParam, { max: 2 }).optional(),
    search_query: z.string().regex(TEAM_SEARCH_PATTERN).optional().describe('Case-insensitive substring of the team name.'),
    next_cursor: nextCursorParam,
  }),
) {}

export class CreateTeamDto extends createZodDto(
  z.strictObject({
    id: uuidParam
      .optional()
      .describe(
        "Refused (422) whatever its value: labflow chooses team ids. Team ids are unique across orgs, so refusing only a taken id would tell that another org's team exists.",
      ),
    name: teamName,
    region: regionParam,
    integration_team_id: integrationTeamId.nullish(),
    partial_webhooks_enabled: z.boolean().default(false),
    lab_report_human_review_enabled: z.boolean().default(false).describe('Lab report parsing jobs may ask for human review (needs_human_review).'),
    link_migration_enabled: z
      .boolean()
      .default(false)
      .describe(
        "Link Migration's routes (/v2/link/bulk_*) answer the team's keys; off by default, as at Junction: a bulk export hands out the users' provider tokens.",
      ),
    logo_url: logoUrl.nullish(),
    brand_information: brandInformation.nullish(),
    lab_tests_patient_sms_communication_enabled: z.boolean().default(true),
    lab_tests_patient_email_communication_enabled: z.boolean().default(true),
    lab_tests_patient_reminders_enabled: z
      .boolean()
      .default(true)
      .describe(
        'labflow extension: patients get reminders (book an appointment, before it, return the kit) by e-mail or SMS, as the communication flags allow.',
      ),
  }),
) {}

export class PatchTeamDto extends createZodDto(
  z.strictObject({
    name: teamName.optional(),
    integration_team_id: integrationTeamId.nullish(),
    partial_webhooks_enabled: z.boolean().optional(),
    lab_report_human_review_enabled: z.boolean().optional(),
    link_migration_enabled: z.boolean().optional(),
    logo_url: logoUrl.nullish(),
    brand_information: brandInformation.nullish(),
    lab_tests_patient_sms_communication_enabled: z.boolean().optional(),
    lab_tests_patient_email_communication_enabled: z.boolean().optional(),
    lab_tests_patient_reminders_enabled: z.boolean().optional(),
    sandbox: environmentSettings.optional().describe('Sandbox settings; merged key by key (null removes a key).'),
    production: environmentSettings.optional().describe('Production settings; merged key by key (null removes a key).'),
  }),
) {}

export class ResolveTeamDto extends createZodDto(z.strictObject({ integration_team_id: integrationTeamId })) {}

const teamSummary = z.object({
  id: z.string(),
  name: z.string(),
  created_on: z.string(),
  region: regionParam,
  integration_team_id: z.string().nullable(),
});

const team = teamSummary.extend({
  partial_webhooks_enabled: z.boolean(),
  lab_report_human_review_enabled: z.boolean(),
  link_migration_enabled: z.boolean(),
  logo_url: z.string().nullable(),
  brand_information: z.record(z.string(), z.string().nullable()).nullable(),
  lab_tests_patient_sms_communication_enabled: z.boolean(),
  lab_tests_patient_email_communication_enabled: z.boolean(),
  lab_tests_patient_reminders_enabled: z.boolean(),
  sandbox: z.record(z.string(), z.unknown()),
  production: z.record(z.string(), z.unknown()),
});

export class TeamDto extends responseDto(team) {}
export class TeamListDto extends responseDto(z.object({ teams: z.array(teamSummary), next_cursor: z.string().nullable() })) {}

export type ManagedTeamView = z.input<typeof team>;
export type TeamSummaryView = z.input<typeof teamSummary>;
