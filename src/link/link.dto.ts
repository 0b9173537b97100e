import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { slug } from '../health-data/health-data.dto';

const linkToken = z.string().min(1).max(200).describe('The link token from POST /v2/link/token.');
/** An e-mail address as the e-mail routes and the hosted page's form take it. */
export const EMAIL = z.email().max(320);
const region = z.string().min(1).max(16).optional().describe("The region of the user's account at the provider (us, eu).");

/** `POST /v2/link/token` (LinkTokenExchange). */
export class LinkTokenDto extends createZodDto(
  z.object({
    user_id: z.uuid().describe('The user who connects.'),
    provider: slug.optional().describe('Open Link on this provider, and allow only it.'),
    redirect_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional()
      .describe('Where the browser goes once the user has connected (and on error or close, when asked).'),
    filter_on_providers: z.array(slug).min(1).max(64).optional().describe('Offer only these providers.'),
    on_error: z.literal('redirect').optional().describe('On an error, go to redirect_url instead of letting the user try again.'),
    on_close: z.literal('redirect').optional().describe('When the user closes Link, go to redirect_url.'),
  }),
) {}

/** `POST /v2/link/token/isValid`. */
export class LinkTokenValidationDto extends createZodDto(z.object({ token: linkToken })) {}

/** `POST /v2/link/start` (BeginLinkTokenRequest). */
export class BeginLinkDto extends createZodDto(z.object({ link_token: linkToken, provider: slug })) {}

export class LinkProviderParams extends createZodDto(z.object({ provider: slug })) {}
export class OauthProviderParams extends createZodDto(z.object({ oauth_provider: slug })) {}

const credentials = {
  username: z.string().min(1).max(320).describe("The user's username (or e-mail) at the provider."),
  password: z.string().min(1).max(256).describe("The user's password at the provider; passed to it, never stored."),
};

/** `POST /v2/link/provider/password/{provider}` (IndividualProviderData). */
export class PasswordProviderDto extends createZodDto(z.object({ ...credentials, region })) {}

/** `POST /v2/link/provider/password/{provider}/complete_mfa`. */
export class CompleteMfaDto extends createZodDto(z.object({ mfa_code: z.string().min(1).max(32).describe('The code the provider sent the user.') })) {}

/** `POST /v2/link/provider/email/{provider}` (EmailProviderAuthLink). */
export class EmailProviderDto extends createZodDto(
  z.object({ email: EMAIL.describe('The address the provider invites to share its data.'), provider: slug.optional(), region }),
) {}

const authType = z.enum(['password', 'oauth', 'email']);

/** `POST /v2/link/auth` (PasswordAuthLink; deprecated by Junction for the route above). */
export class PasswordAuthLinkDto extends createZodDto(z.object({ ...credentials, provider: slug, auth_type: authType })) {}

/** `POST /v2/link/auth/email` (EmailAuthLink; deprecated by Junction for the route above). */
export class EmailAuthLinkDto extends createZodDto(z.object({ email: EMAIL, provider: slug, auth_type: authType, region })) {}

/**
 * The provider's return to labflow after an OAuth grant: `code` when granted, `error` when not;
 * `scope`, the scopes the user granted, where the provider says so here (Oura does).
 */
export class OauthCallbackQuery extends createZodDto(
  z.object({
    state: z.string().min(1).max(200),
    code: z.string().min(1).max(2048).optional(),
    error: z.string().max(200).optional(),
    scope: z.string().max(2048).optional(),
  }),
) {}

/** The SDK's ManualProviders: sources whose data the user's phone or app pushes to labflow. */
export const MANUAL_PROVIDERS = [
  'beurer_ble',
  'omron_ble',
  'accuchek_ble',
  'contour_ble',
  'freestyle_libre_ble',
  'onetouch_ble',
  'apple_health_kit',
  'manual',
  'health_connect',
  // Not in vital-node 3.1.551's ManualProviders (non-exhaustive); the Android SDK's Samsung Health module connects it.
  'samsung_health',
] as const;

export class ManualProviderParams extends createZodDto(z.object({ provider: z.enum(MANUAL_PROVIDERS) })) {}

/** `POST /v2/link/provider/manual/{provider}` (ManualConnectionData). */
export class ManualConnectionDto extends createZodDto(
  z.object({
    user_id: z.uuid().describe("The user whose phone or app will send this source's data."),
    provider_id: z.string().min(1).max(256).optional().describe("The provider's id of the user, shown as the connection's external_user_id."),
  }),
) {}
