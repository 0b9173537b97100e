import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { actingFor, type TeamPrincipal } from '../auth/principal';
import { generateSecret, hashSecretHex as hash } from '../common/crypto';
import { badRequest, notFound, unauthorized } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { ConnectionsService } from '../connections/connections.service';
import { PROVIDERS } from '../health-data/providers';
import { TeamSettingsRepository } from '../tenancy/team-settings.repository';
import { UsersRepository } from '../users/users.repository';
import type { ApiEnvironment } from '../tenancy/entities';
import { type LinkTokenRow, LinkTokensRepository } from './link-tokens.repository';
import { linkStateView, oauthSourceView, providerLinkView, redirectAfterStep, sourceLinkView } from './link-views';
import { type AuthOutcome, type LinkAuthType, PROVIDER_AUTH, type ProviderAuth, type ProviderAuths } from '../adapters/sources/provider-auth';

/** Junction's: "a one time use token, that expires after 10 minutes". */
export const LINK_TOKEN_TTL_MS = 10 * 60_000;

/** Where the OAuth flow of a token ended, for the page or redirect the browser gets. */
export interface OauthCallbackOutcome {
  provider: string;
  state: 'success' | 'error';
  errorType: string | null;
  error: string | null;
  /** The team's redirect_url with the outcome, when the browser should go there. */
  redirectTo: string | null;
  teamId: string | null;
}

/**
 * The Link flow: a team's backend asks for a link token for one of its users; the user (in the
 * hosted Link page, or the team's own UI through the token-authenticated routes) picks a
 * provider and signs in to it; the provider's answer connects the user (ConnectionsService, the
 * same path as demo connections: one workflow per connection, `provider.connection.created`,
 * 30 days of history). A token is good for ten minutes and one connection; a refused sign-in
 * may be tried again while it lasts.
 */
@Injectable()
export class LinkService {
  constructor(
    private readonly tokens: LinkTokensRepository,
    private readonly users: UsersRepository,
    private readonly connections: ConnectionsService,
    private readonly teams: TeamSettingsRepository,
    @Inject(PROVIDER_AUTH) private readonly auths: ProviderAuths,
    @Inject(LABFLOW_CONFIG) private readonly config: Pick<LabflowConfig, 'api'>,
  ) {}

  /** `POST /v2/link/token`. */
  async createToken(
    team: TeamPrincipal,
    request: { user_id: string; provider?: string; redirect_url?: string; filter_on_providers?: string[]; on_error?: string; on_close?: string },
  ) {
    if (!(await this.users.findLive(team, request.user_id))) throw notFound('User');
    for (const provider of [request.provider, ...(request.filter_on_providers ?? [])]) {
      if (provider && !this.authTypeOf(provider, team.environment)) throw badRequest(this.notOffered(provider, team));
    }
    if (request.provider && request.filter_on_providers && !request.filter_on_providers.includes(request.provider)) {
      throw badRequest(`provider ${request.provider} is not among filter_on_providers.`);
    }
    if ((request.on_error || request.on_close) && !request.redirect_url) throw badRequest('on_error and on_close redirect to redirect_url: give one.');
    const token = generateSecret('lnk_');
    await this.tokens.insert({
      id: randomUUID(),
      tokenHash: hash(token),
      teamId: team.teamId,
      environment: team.environment,
      region: team.region,
      userId: request.user_id,
      provider: request.provider ?? null,
      filterOnProviders: request.filter_on_providers ?? null,
      redirectUrl: request.redirect_url ?? null,
      onError: request.on_error ?? null,
      onClose: request.on_close ?? null,
      expiresAt: new Date(Date.now() + LINK_TOKEN_TTL_MS),
    });
    return { link_token: token, link_web_url: this.webUrl(token) };
  }

  /** `POST /v2/link/token/isValid`: whether the team's token can still connect someone. */
  async isValid(team: TeamPrincipal, token: string) {
    const row = await this.tokens.findByHash(hash(token));
    if (!row || row.teamId !== team.teamId || row.environment !== team.environment)
      return { success: false, error_type: 'invalid_token', detail: 'The link token is not valid.' };
    const refusal = this.refusalOf(row);
    if (refusal) return { success: false, error_type: refusal.errorType, detail: refusal.detail };
    return { success: true, user_id: row.userId, expires_at: row.expiresAt.toISOString() };
  }

  /** `GET /v2/link/state`. */
  async state(token: string | undefined) {
    const row = await this.find(token);
    return linkStateView(row, this.expired(row));
  }

  /** `GET /v2/link/providers`: what the token's user may connect here. */
  async providers(token: string | undefined) {
    const row = await this.find(token);
    return this.offered(row).map(([slug, authType]) => sourceLinkView(slug, authType));
  }

  /**
   * `GET /v2/team/link/config` (the SDK sends the link token alone): the Link widget settings of the
   * token's team, as the management API sets them (name, logo_url, brand_information, and the
   * token environment's settings), with the providers the token offers.
   */
  async teamConfig(token: string | undefined) {
    const row = await this.find(token);
    const config = await this.teams.linkConfigOf(row.teamId, row.environment);
    if (!config) throw unauthorized('The link token is not valid.');
    return {
      team_id: row.teamId,
      environment: row.environment,
      name: config.brandInformation?.company_name ?? config.name,
      logo_url: config.logoUrl,
      brand_information: config.brandInformation,
      settings: config.settings,
      providers: this.offered(row).map(([slug]) => slug),
    };
  }

  /** `POST /v2/link/start`: the user picked a provider. */
  async start(token: string, provider: string) {
    const row = await this.usable(token);
    const authType = this.offeredAuthType(row, provider);
    await this.tokens.choose(row.id, provider);
    return { success: true, provider, auth_type: authType, link_web_url: this.webUrl(token) };
  }

  /** `GET /v2/link/provider/oauth/{provider}`: the provider's page where the user grants access. */
  async beginOauth(token: string | undefined, provider: string) {
    const row = await this.usable(token);
    this.requireAuthType(row, provider, 'oauth');
    const state = generateSecret('', 16);
    await this.tokens.beginOauth(row.id, provider, hash(state));
    const callback = this.callbackUrl(provider);
    return oauthSourceView(provider, this.authFor(provider, row.environment).oauthUrl(provider, state, callback));
  }

  /**
   * The provider sent the browser back (`GET /v2/link/connect/{provider}`): with a code, the
   * grant is completed and the user connected; with an error, the user did not grant access.
   */
  async completeOauth(provider: string, query: { state: string; code?: string; error?: string; scope?: string }): Promise<OauthCallbackOutcome> {
    const row = await this.tokens.findByOauthState(hash(query.state));
    const refusal = row ? this.refusalOf(row) : { errorType: 'invalid_token', detail: 'This sign-in is not known, or was finished already.' };
    if (!row || refusal || row.chosenProvider !== provider) {
      const detail = refusal?.detail ?? 'This sign-in was for another provider.';
      return { provider, state: 'error', errorType: refusal?.errorType ?? 'invalid_token', error: detail, redirectTo: null, teamId: row?.teamId ?? null };
    }
    const outcome: AuthOutcome =
      query.code && !query.error
        ? await this.authFor(provider, row.environment).completeOauth(provider, {
            code: query.code,
            scope: query.scope,
            callbackUrl: this.callbackUrl(provider),
          })
        : { outcome: 'refused', errorType: 'user_cancelled', error: `Access to ${provider} was not granted.` };
    const after = await this.settle(row, provider, outcome);
    const state = after.state === 'success' ? 'success' : 'error';
    return { provider, state, errorType: after.errorType, error: after.error, redirectTo: redirectAfterStep(after, provider), teamId: row.teamId };
  }

  /** `POST /v2/link/provider/password/{provider}`. */
  async connectPassword(token: string | undefined, provider: string, credentials: { username: string; password: string; region?: string }) {
    const row = await this.usable(token);
    this.requireAuthType(row, provider, 'password');
    await this.tokens.choose(row.id, provider);
    return providerLinkView(await this.settle(row, provider, await this.authFor(provider, row.environment).password(provider, credentials)), provider);
  }

  /** `POST /v2/link/provider/password/{provider}/complete_mfa`. */
  async completeMfa(token: string | undefined, provider: string, code: string) {
    const row = await this.usable(token);
    this.requireAuthType(row, provider, 'password');
    if (row.state !== 'pending_provider_mfa' || row.chosenProvider !== provider || !row.mfaChallenge) {
      throw badRequest(`No sign-in to ${provider} is waiting for a code: send the username and password first.`);
    }
    return providerLinkView(
      await this.settle(row, provider, await this.authFor(provider, row.environment).completeMfa(provider, row.mfaChallenge, code)),
      provider,
    );
  }

  /** `POST /v2/link/provider/email/{provider}`. */
  async connectEmail(token: string | undefined, provider: string, email: string, region?: string) {
    const row = await this.usable(token);
    this.requireAuthType(row, provider, 'email');
    await this.tokens.choose(row.id, provider);
    return providerLinkView(await this.settle(row, provider, await this.authFor(provider, row.environment).email(provider, email, region)), provider);
  }

  /**
   * `POST /v2/link/provider/manual/{provider}` (API key): a source the user's phone or app pushes,
   * in either environment, since labflow needs no client of it.
   */
  async connectManual(team: TeamPrincipal, provider: string, userId: string, providerId?: string): Promise<{ success: true }> {
    await this.connections.connectPush(team, userId, provider, providerId);
    return { success: true };
  }

  /** The token's row for the hosted page, which shows an unusable token's reason instead of failing. */
  async forPage(token: string | undefined): Promise<{ row: LinkTokenRow | null; refusal: string | null; offered: Array<[string, LinkAuthType]> }> {
    const row = token ? await this.tokens.findByHash(hash(token)) : null;
    if (!row) return { row: null, refusal: 'This link is not valid. Ask the app that sent you here for a new one.', offered: [] };
    const refusal = this.refusalOf(row);
    return { row, refusal: refusal?.detail ?? null, offered: refusal ? [] : this.offered(row) };
  }

  /** Where the user's answer lands: the token's state after the provider's outcome. */
  private async settle(row: LinkTokenRow, provider: string, outcome: AuthOutcome): Promise<LinkTokenRow> {
    if (outcome.outcome === 'connected') {
      const team = actingFor(row);
      if (!(await this.users.findLive(team, row.userId))) {
        await this.tokens.fail(row.id, 'invalid_token', 'The user of this link token no longer exists.');
      } else {
        await this.connections.connect(team, row.userId, provider, outcome.grant);
        await this.tokens.succeed(row.id);
      }
    } else if (outcome.outcome === 'mfa') {
      await this.tokens.awaitMfa(row.id, outcome);
    } else {
      await this.tokens.fail(row.id, outcome.errorType, outcome.error);
    }
    return (await this.tokens.findById(row.id)) ?? row;
  }

  private async find(token: string | undefined): Promise<LinkTokenRow> {
    if (!token) throw unauthorized('Send the link token in the x-vital-link-token header.');
    const row = await this.tokens.findByHash(hash(token));
    if (!row) throw unauthorized('The link token is not valid.');
    return row;
  }

  /** A token that can still connect: known, not expired, not used. */
  private async usable(token: string | undefined): Promise<LinkTokenRow> {
    const row = await this.find(token);
    const refusal = this.refusalOf(row);
    if (refusal) throw unauthorized(refusal.detail);
    return row;
  }

  private refusalOf(row: LinkTokenRow): { errorType: string; detail: string } | null {
    if (row.state === 'success')
      return { errorType: 'token_consumed', detail: 'The link token was used already: ask for a new one to connect another provider.' };
    if (this.expired(row)) return { errorType: 'token_expired', detail: 'The link token has expired: ask for a new one.' };
    return null;
  }

  private expired(row: LinkTokenRow): boolean {
    return row.expiresAt.getTime() <= Date.now();
  }

  /** The providers the token offers, with how each is connected. */
  private offered(row: LinkTokenRow): Array<[string, LinkAuthType]> {
    const candidates = row.provider ? [row.provider] : (row.filterOnProviders ?? this.allProviders());
    const offered: Array<[string, LinkAuthType]> = [];
    for (const slug of candidates) {
      const authType = this.authTypeOf(slug, row.environment);
      if (authType) offered.push([slug, authType]);
    }
    return offered;
  }

  private allProviders(): string[] {
    return PROVIDERS.map((provider) => provider.slug);
  }

  private offeredAuthType(row: LinkTokenRow, provider: string): LinkAuthType {
    const entry = this.offered(row).find(([slug]) => slug === provider);
    if (!entry) throw badRequest(`This link token does not offer ${provider}.`);
    return entry[1];
  }

  private requireAuthType(row: LinkTokenRow, provider: string, authType: LinkAuthType): void {
    const actual = this.offeredAuthType(row, provider);
    if (actual !== authType) throw badRequest(`${provider} is connected by ${actual}, not ${authType}.`);
  }

  private notOffered(provider: string, team: TeamPrincipal): string {
    const can = this.allProviders().filter((slug) => this.authTypeOf(slug, team.environment));
    if (team.environment === 'sandbox') return `${provider} cannot be connected through Link in the sandbox; these can: ${can.join(', ')}.`;
    return can.length > 0
      ? `${provider} cannot be connected through Link in production; these can: ${can.join(', ')}.`
      : `${provider} cannot be connected through Link in production: this labflow has no provider client configured (OURA_CLIENT_ID and OURA_CLIENT_SECRET for Oura).`;
  }

  /** The first ProviderAuth that connects `provider` in `environment` (real providers' before the sandbox's), if any. */
  private authOf(provider: string, environment: ApiEnvironment): ProviderAuth | undefined {
    return this.auths.find((auth) => auth.authTypeOf(provider, environment));
  }

  /** How `provider` is connected in `environment`, or null when nothing connects it there (Link Migration asks it too). */
  authTypeOf(provider: string, environment: ApiEnvironment): LinkAuthType | null {
    return this.authOf(provider, environment)?.authTypeOf(provider, environment) ?? null;
  }

  /** The ProviderAuth that connects `provider` in `environment` (the caller checked that one does). */
  private authFor(provider: string, environment: ApiEnvironment): ProviderAuth {
    const auth = this.authOf(provider, environment);
    if (!auth) throw badRequest(`${provider} cannot be connected through Link in ${environment}.`);
    return auth;
  }

  /** Where the provider sends the browser back after the user granted (or refused) access. */
  private callbackUrl(provider: string): string {
    return new URL(`/v2/link/connect/${provider}`, this.config.api.publicUrl).toString();
  }

  private webUrl(token: string): string {
    const web = new URL('/link', this.config.api.publicUrl);
    web.searchParams.set('token', token);
    return web.toString();
  }
}
