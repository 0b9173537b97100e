import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { WebhookPortalSessionsRepository } from '../management/webhooks/webhook-portal-sessions.repository';
import type { ApiEnvironment } from '../tenancy/entities';
import { PortalTokens } from '../portal/portal-tokens';

/** Where the webhook portal's pages live on the API (PUBLIC_API_URL + these). */
export const WEBHOOK_PORTAL_PREFIX = '/webhook-portal';
export const webhookPortalLaunchPath = (token: string) => `${WEBHOOK_PORTAL_PREFIX}/launch/${token}`;

/** DI token of the webhook portal's signer (PortalTokens under a label of its own). */
export const WEBHOOK_PORTAL_TOKENS = Symbol('WEBHOOK_PORTAL_TOKENS');
export const webhookPortalTokens = (config: LabflowConfig) => new PortalTokens(config.phiEncryptionKey, [], 'labflow webhook portal');

/** Why a launch URL does not open (each has its own page and status). */
export type LaunchProblem = 'invalid' | 'expired' | 'used' | 'revoked';

export class WebhookPortalLaunchError extends Error {
  constructor(readonly problem: LaunchProblem) {
    super(`webhook portal link ${problem}`);
  }
}

/** A session of the webhook portal: one team's deliveries in one environment. */
export interface PortalTeamSession {
  teamId: string;
  environment: ApiEnvironment;
  sessionId: string;
  csrf: string;
}

const ENVIRONMENTS: readonly string[] = ['sandbox', 'production'];

/**
 * Who may open the webhook portal. `GET /v2/team/svix/url` signs a launch URL (HMAC-SHA256,
 * PortalTokens under the label "labflow webhook portal", so no patient-portal token passes
 * here) naming the team, environment, a nonce and an expiry (PORTAL_LAUNCH_TTL), and writes the
 * nonce's row (`webhook_portal_sessions`); the URL opens once (the row's `opened_at`) into a
 * signed session cookie for PORTAL_SESSION_TTL naming that row. Every request checks the row, so
 * revoking the team's sessions (`revokeAll`) refuses the next request of each at once.
 */
@Injectable()
export class WebhookPortalAccessService {
  constructor(
    @Inject(WEBHOOK_PORTAL_TOKENS) private readonly tokens: PortalTokens,
    private readonly sessions: WebhookPortalSessionsRepository,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /** The URL and its token (Svix's app-portal-access shape: `{url, token}`), and how long it works. */
  async launchUrl(team: TeamPrincipal): Promise<{ url: string; token: string; expires_in: number }> {
    const ttlMs = this.config.portal.launchTtlMs;
    const expires = Math.floor((Date.now() + ttlMs) / 1000);
    const nonce = randomUUID();
    await this.sessions.insertLaunch(nonce, scopeOf(team), new Date(expires * 1000));
    const token = this.tokens.sign('launch', [team.teamId, team.environment, nonce, expires]);
    return { url: `${this.config.api.publicUrl}${webhookPortalLaunchPath(token)}`, token, expires_in: Math.floor(ttlMs / 1000) };
  }

  /** Opens a launch URL once: the session cookie's value and its lifetime in seconds. */
  async openLaunch(token: string): Promise<{ cookie: string; maxAgeSeconds: number }> {
    const parts = this.tokens.verify('launch', token, 4);
    if (!parts || !ENVIRONMENTS.includes(parts[1])) throw new WebhookPortalLaunchError('invalid');
    const [teamId, environment, nonce, expires] = parts;
    const leftMs = Number(expires) * 1000 - Date.now();
    if (!(leftMs > 0)) throw new WebhookPortalLaunchError('expired');
    const sessionSeconds = Math.floor(this.config.portal.sessionTtlMs / 1000);
    const ends = Math.floor(Date.now() / 1000) + sessionSeconds;
    const opened = await this.sessions.open(nonce, { teamId, environment: environment as ApiEnvironment }, new Date(ends * 1000));
    if (opened !== true) throw new WebhookPortalLaunchError(opened === 'unknown' ? 'invalid' : opened);
    // The session is the launch URL's row: its cookie names it.
    const cookie = this.tokens.sign('session', [teamId, environment, nonce, ends]);
    return { cookie, maxAgeSeconds: sessionSeconds };
  }

  /** The session a cookie names while it lasts and is not revoked; null otherwise. */
  async session(cookie: string | undefined): Promise<PortalTeamSession | null> {
    const parts = this.tokens.verify('session', cookie, 4);
    if (!parts || !ENVIRONMENTS.includes(parts[1]) || Number(parts[3]) * 1000 <= Date.now()) return null;
    const [teamId, environment, sessionId] = parts;
    const session = { teamId, environment: environment as ApiEnvironment, sessionId, csrf: this.tokens.sign('csrf', [sessionId]) };
    return (await this.sessions.isLive(sessionId, session)) ? session : null;
  }

  /** Revokes the team's open sessions and unopened URLs in the key's environment (`DELETE /v2/team/svix/sessions`). */
  async revokeAll(team: TeamPrincipal): Promise<{ success: true; revoked: number }> {
    return { success: true, revoked: await this.sessions.revokeAll(scopeOf(team)) };
  }

  csrfMatches(session: PortalTeamSession, token: unknown): boolean {
    const parts = this.tokens.verify('csrf', token, 1);
    return parts !== null && parts[0] === session.sessionId;
  }
}

const scopeOf = (team: TeamPrincipal) => ({ teamId: team.teamId, environment: team.environment });
