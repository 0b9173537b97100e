import { responseDto } from '../common/openapi';
import { z } from 'zod';

/** What the Link and link-migration routes answer (link.service.ts, link-views.ts), documented in /openapi.json. */

const authType = z.enum(['oauth', 'password', 'email']);

export class LinkTokenResponse extends responseDto(z.object({ link_token: z.string(), link_web_url: z.string() })) {}

/** Valid: `success`, `user_id`, `expires_at`; not: `success: false`, `error_type`, `detail`. */
export class LinkTokenValidityResponse extends responseDto(
  z.object({
    success: z.boolean(),
    user_id: z.string().optional(),
    expires_at: z.string().optional(),
    error_type: z.string().optional(),
    detail: z.string().optional(),
  }),
) {}

const flowState = {
  provider: z.string().nullable(),
  connected: z.boolean(),
  redirect_url: z.string().nullable(),
  error_type: z.string().nullable(),
  error: z.string().nullable(),
  provider_mfa: z.object({ method: z.string().nullable(), hint: z.string().nullable() }).nullable(),
};

export class LinkStateResponse extends responseDto(z.object({ state: z.string(), ...flowState, expires_at: z.string() })) {}

/** The answer of a password or e-mail connection attempt (and its second factor). */
export class LinkConnectionAttemptResponse extends responseDto(
  z.object({ state: z.enum(['error', 'success', 'pending_provider_mfa']), ...flowState, provider: z.string(), provider_id: z.null() }),
) {}

const providerBase = { id: z.number().int(), name: z.string(), slug: z.string(), description: z.string(), logo: z.string() };

export class LinkProviderListResponse extends responseDto(
  z.array(
    z.object({
      ...providerBase,
      oauth_url: z.null(),
      auth_type: authType,
      form_components: z.record(z.string(), z.object({ type: z.string(), label: z.string(), required: z.boolean() })),
    }),
  ),
) {}

export class LinkStartResponse extends responseDto(z.object({ success: z.boolean(), provider: z.string(), auth_type: authType, link_web_url: z.string() })) {}

export class OauthProviderResponse extends responseDto(
  z.object({
    ...providerBase,
    group: z.null(),
    oauth_url: z.string(),
    auth_type: z.literal('oauth'),
    source_type: z.enum(['provider', 'app', 'ble', 'device', 'lab']),
    is_active: z.boolean(),
    backfill_num_days: z.number().int(),
  }),
) {}

export class BulkOpListResponse extends responseDto(
  z.object({
    data: z.array(
      z.object({
        type: z.enum(['link_bulk_import', 'link_bulk_historical_trigger']),
        status: z.enum(['in_progress', 'success', 'failure', 'aborted']),
        provider: z.string(),
        pending: z.number().int(),
        processed: z.number().int(),
        started_at: z.string(),
        ended_at: z.string().nullable(),
      }),
    ),
    next_cursor: z.string().nullable(),
  }),
) {}

export class BulkImportResponse extends responseDto(z.object({ user_ids_imported: z.array(z.string()), user_ids_failed: z.array(z.string()) })) {}

export class BulkHistoricalPullResponse extends responseDto(z.object({ user_ids_pulled: z.array(z.string()), user_ids_failed: z.array(z.string()) })) {}

export class BulkPauseResponse extends responseDto(z.object({ user_ids_paused: z.array(z.string()), user_ids_not_found: z.array(z.string()) })) {}

export class BulkExportResponse extends responseDto(
  z.object({
    data: z.array(
      z.object({
        user_id: z.string(),
        access_token: z.string(),
        refresh_token: z.string(),
        provider_id: z.string(),
        expires_at: z.number(),
        oauth_scopes: z.array(z.string()).nullable(),
      }),
    ),
    next_token: z.string().nullable(),
  }),
) {}

export class TeamLinkConfigResponse extends responseDto(
  z.object({
    team_id: z.string(),
    environment: z.string(),
    name: z.string(),
    logo_url: z.string().nullable(),
    brand_information: z.looseObject({}).nullable().describe('As the management API sets it.'),
    settings: z.looseObject({}).describe("The environment's Link settings, as the management API sets them."),
    providers: z.array(z.string()),
  }),
) {}
