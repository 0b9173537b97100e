import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { notFound, validationError } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { UserInfoService } from '../users/user-info.service';
import { OrdersRepository } from '../orders/orders.repository';
import { isUniqueViolation, UsersRepository } from '../users/users.repository';
import { PortalLinksRepository } from './portal-links.repository';
import { newShortCode, PORTAL_TOKENS, type PortalTokens } from './portal-tokens';
import type { CreatePortalUrlDto } from './portal-urls.dto';

/** Where the portal's pages live on the API (PUBLIC_API_URL + these). */
export const PORTAL_PREFIX = '/portal';
export const shortLinkPath = (code: string) => `/p/${code}`;
export const launchPath = (token: string) => `${PORTAL_PREFIX}/launch/${token}`;

/**
 * `POST /v2/user/{user_id}/create_portal_url` and the revocation of communications links.
 * A launch URL carries a signed, expiring token and works once; a communications URL is a short
 * code looked up in portal_links, so it can be revoked.
 */
@Injectable()
export class PortalUrlsService {
  constructor(
    private readonly links: PortalLinksRepository,
    private readonly users: UsersRepository,
    private readonly orders: OrdersRepository,
    private readonly userInfos: UserInfoService,
    @Inject(PORTAL_TOKENS) private readonly tokens: PortalTokens,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async create(team: TeamPrincipal, userId: string, body: CreatePortalUrlDto): Promise<{ url: string; expires_in: number }> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
    const orders = await this.orders.ordersOfUser(team, userId);
    const orderId = body.order_id ?? null;
    // Another user's or team's order is as unknown as a missing one.
    if (orderId !== null && !(await this.orders.findScoped(team, orderId).then((order) => order?.userId === userId))) throw notFound('Order');
    if (!orders.some((order) => order.patientDetailsEnc !== null) && !(await this.userInfos.onFile(userId))) {
      throw validationError(
        ['path', 'user_id'],
        'The user has no demographics on file: the portal needs their user info (PATCH /v2/user/{user_id}/info) or patient details from one of their orders.',
        userId,
      );
    }
    const ttlMs = body.context === 'launch' ? this.config.portal.launchTtlMs : this.config.portal.communicationsTtlMs;
    const expiresAt = new Date(Date.now() + ttlMs);
    const link = {
      id: randomUUID(),
      team_id: team.teamId,
      environment: team.environment,
      user_id: userId,
      order_id: orderId,
      context: body.context,
      expires_at: expiresAt,
    };
    let path: string;
    if (body.context === 'launch') {
      await this.links.insertLink({ ...link, code_hash: null });
      path = launchPath(this.tokens.sign('launch', [link.id, Math.floor(expiresAt.getTime() / 1000)]));
    } else {
      path = shortLinkPath(await this.insertWithFreshCode(link));
    }
    return { url: `${this.config.api.publicUrl}${path}`, expires_in: Math.floor(ttlMs / 1000) };
  }

  /** Revokes one communications URL of the user (404 when the team never issued that code to them). */
  async revoke(team: TeamPrincipal, userId: string, code: string): Promise<{ success: true; revoked: number }> {
    const digests = this.tokens.codeDigests(code);
    if (!(await this.links.codeBelongsTo(team, userId, digests))) throw notFound('Portal URL');
    return { success: true, revoked: await this.links.revoke(team, userId, digests) };
  }

  /** Revokes every communications URL of the user (e.g. a lost phone). */
  async revokeAll(team: TeamPrincipal, userId: string): Promise<{ success: true; revoked: number }> {
    return { success: true, revoked: await this.links.revoke(team, userId, null) };
  }

  /** A short code is random; on the rare collision, draw again. */
  private async insertWithFreshCode(link: Omit<Parameters<PortalLinksRepository['insertLink']>[0], 'code_hash'>): Promise<string> {
    for (let attempt = 0; ; attempt += 1) {
      const code = newShortCode();
      try {
        await this.links.insertLink({ ...link, code_hash: this.tokens.codeDigest(code) });
        return code;
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 5) throw error;
      }
    }
  }
}
