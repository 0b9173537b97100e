import { createZodDto } from 'nestjs-zod';
import { responseDto } from '../common/openapi';
import { z } from 'zod';

/** `POST /v1/token`: RFC 8693 token exchange of a sign-in token, or the refresh grant (form or JSON). */
export class TokenRequestDto extends createZodDto(
  z.object({
    grant_type: z.string().min(1).max(100).describe('urn:ietf:params:oauth:grant-type:token-exchange (a sign-in token), or refresh_token.'),
    subject_token: z.string().min(1).max(8192).optional().describe("The sign-in token's user_token (or the whole sign-in token)."),
    subject_token_type: z.string().max(100).optional().describe('urn:ietf:params:oauth:token-type:jwt (ignored).'),
    refresh_token: z.string().min(1).max(200).optional().describe('The refresh token, with grant_type=refresh_token.'),
  }),
) {}

export class TokenResponseDto extends createZodDto(
  z.object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    refresh_token: z.string(),
    issued_token_type: z.string(),
  }),
) {}

export class SignInTokenResponseDto extends createZodDto(z.object({ user_id: z.string(), sign_in_token: z.string() })) {}

/** `POST /v2/link/code/create` (query, as the SDK sends it). */
export class CreateLinkCodeQuery extends createZodDto(
  z.object({
    user_id: z.uuid().describe('The user the code signs in.'),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('When the code stops working (default: LINK_CODE_TTL, one hour; at most 7 days away).'),
  }),
) {}

export class LinkCodeDto extends createZodDto(z.object({ code: z.string(), exchange_url: z.string(), expires_at: z.string() })) {}

/** `POST /v2/link/code/exchange` (query, as the Connect app sends it). */
export class ExchangeLinkCodeQuery extends createZodDto(
  z.object({
    code: z.string().min(1).max(64),
    grant_type: z.literal('sign_in_token').default('sign_in_token').describe('What the code is exchanged for: a sign-in token.'),
  }),
) {}

export class SdkProviderParams extends createZodDto(z.object({ user_id: z.uuid(), provider: z.string().regex(/^[a-z0-9_]{1,64}$/) })) {}

/** The iOS SDK's dates: ISO 8601, whole seconds, `Z` (Swift's `.iso8601`); an offset is taken too. */
const sdkDate = z.iso.datetime({ offset: true });

/** `POST /v2/user/{user_id}/sdk_start_historical_stage/{provider}` (the iOS SDK's UserSDKHistoricalStageBeginBody). */
export class HistoricalStageDto extends createZodDto(
  z
    .object({
      range_start: sdkDate.describe('The start of the range the historical stage uploads.'),
      range_end: sdkDate.describe('Its end.'),
      backfill_type: z
        .string()
        .regex(/^[a-z0-9_]{1,64}$/)
        .describe("What the stage uploads (the SDK's BackfillType: heartrate, steps, activity, sleep…)."),
    })
    .refine((body) => Date.parse(body.range_end) >= Date.parse(body.range_start), { path: ['range_end'], message: 'range_end is before range_start.' }),
) {}

/** `POST /v2/user/{user_id}/sdk_sync_progress/{provider}` (the iOS SDK's SyncProgressReport), kept as sent. */
export class SyncProgressDto extends createZodDto(
  z.object({
    sync_progress: z.record(z.string(), z.unknown()).describe("The SDK's progress per backfill type (its SyncProgress), kept as sent."),
    device_info: z
      .object({
        os_version: z.string().max(64).optional(),
        model: z.string().max(128).optional(),
        app_bundle: z.string().max(256).optional(),
        app_version: z.string().max(64).optional(),
        app_build: z.string().max(64).optional(),
      })
      .optional()
      .describe('The phone and the app that reported.'),
  }),
) {}

/** What the sign-out, sync-state, JWKS and link-code exchange routes answer, documented in /openapi.json. */
export class SdkSyncStateResponse extends responseDto(
  z.object({
    status: z.enum(['active', 'paused', 'error']),
    request_start_date: z.string(),
    request_end_date: z.string(),
    ingestion_start: z.string().optional(),
    ingestion_end: z.string().optional(),
    expires_in: z.number().int(),
  }),
) {}

export class SignOutResponse extends responseDto(z.object({ success: z.literal(true) })) {}

export class JwksResponse extends responseDto(
  z.object({
    keys: z.array(
      z
        .object({
          kty: z.string().optional(),
          kid: z.string().optional(),
          use: z.string().optional(),
          alg: z.string().optional(),
          n: z.string().optional(),
          e: z.string().optional(),
        })
        .describe('An RSA public JSON Web Key (RFC 7517).'),
    ),
  }),
) {}

export class LinkCodeExchangeResponse extends responseDto(
  z.object({ user_id: z.string(), sign_in_token: z.string(), team: z.object({ name: z.string(), logo_url: z.string().nullable() }) }),
) {}
