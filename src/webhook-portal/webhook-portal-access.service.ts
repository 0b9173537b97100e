import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { REDIS } from '../core.tokens';
import type { ApiEnvironment } from '../tenancy/entities';
import { PortalTokens } from '../portal/portal-tokens';

/** Where the webhook portal's pages live on the API (PUBLIC_API_URL + these). */
export const WEBHOOK_PORTAL_PREFIX = '/webhook-portal';
export const webhookPortalLaunchPath = (token: string) => `${WEBHOOK_PORTAL_PREFIX}/launch/${token}`;

/** DI token of the webhook portal's signer (PortalTokens under a label of its own). */
export const WEBHOOK_PORTAL_TOKENS = Symbol('WEBHOOK_PORTAL_TOKENS');
export const webhookPortalTokens = (config: LabflowConfig) => new PortalTokens(config.phiEncryptionKey, [], 'labflow webhook portal');

/** Why a launch URL does not open (each has its own page and status). */
export type LaunchProblem = 'invalid' | 'expired' | 'used';

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
 * here) naming the team, environment, a nonce and an expiry (PORTAL_LAUNCH_TTL); it opens once
 * (the nonce is claimed in Redis until the URL would have expired) and sets a signed session
 * cookie for PORTAL_SESSION_TTL. Nothing is stored in Postgres: a session ends with its expiry.
 */
@Injectable()
export class WebhookPortalAccessService {
  constructor(
    @Inject(WEBHOOK_PORTAL_TOKENS) private readonly tokens: PortalTokens,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /** The URL and its token (Svix's app-portal-access shape: `{url, token}`), and how long it works. */
  launchUrl(team: TeamPrincipal): { url: string; token: string; expires_in: number } {
    const ttlMs = this.config.portal.launchTtlMs;
    const expires = Math.floor((Date.now() + ttlMs) / 1000);
    const token = this.tokens.sign('launch', [team.teamId, team.environment, randomUUID(), expires]);
    return { url: `${this.config.api.publicUrl}${webhookPortalLaunchPath(token)}`, token, expires_in: Math.floor(ttlMs / 1000) };
  }

  /** Opens a launch URL once: the session cookie's value and its lifetime in seconds. */
  async openLaunch(token: string): Promise<{ cookie: string; maxAgeSeconds: number }> {
    const parts = this.tokens.verify('launch', token, 4);
    if (!parts || !ENVIRONMENTS.includes(parts[1])) throw new WebhookPortalLaunchError('invalid');
    const [teamId, environment, nonce, expires] = parts;
    const leftMs = Number(expires) * 1000 - Date.now();
    if (!(leftMs > 0)) throw new WebhookPortalLaunchError('expired');
    const claimed = await this.redis.set(`labflow:webhook-portal:launch:${nonce}`, '1', 'PX', Math.ceil(leftMs) + 1000, 'NX');
    if (claimed !== 'OK') throw new WebhookPortalLaunchError('used');
    const sessionSeconds = Math.floor(this.config.portal.sessionTtlMs / 1000);
    const cookie = this.tokens.sign('session', [teamId, environment, randomUUID(), Math.floor(Date.now() / 1000) + sessionSeconds]);
    return { cookie, maxAgeSeconds: sessionSeconds };
  }

  /** The session a cookie names while it lasts; null otherwise. */
  session(cookie: string | undefined): PortalTeamSession | null {
    const parts = this.tokens.verify('session', cookie, 4);
    if (!parts || !ENVIRONMENTS.includes(parts[1]) || Number(parts[3]) * 1000 <= Date.now()) return null;
    const [teamId, environment, sessionId] = parts;
    return { teamId, environment: environment as ApiEnvironment, sessionId, csrf: this.tokens.sign('csrf', [sessionId]) };
  }

  csrfMatches(session: PortalTeamSession, token: unknown): boolean {
    const parts = this.tokens.verify('csrf', token, 1);
    return parts !== null && parts[0] === session.sessionId;
  }
}
