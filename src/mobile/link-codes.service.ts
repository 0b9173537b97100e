import { Inject, Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { hashSecretHex } from '../common/crypto';
import { ApiError, notFound, validationError } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { TeamSettingsRepository } from '../tenancy/team-settings.repository';
import { UsersRepository } from '../users/users.repository';
import { LinkCodesRepository } from './link-codes.repository';
import { SdkTokensService } from './sdk-tokens.service';

/** Letters and digits that cannot be read one for another (no 0/O, 1/I/L). */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 16;
/** The longest a team may ask a code to last. */
const MAX_CODE_LIFETIME_MS = 7 * 24 * 3600 * 1000;

export interface LinkCodeView {
  code: string;
  exchange_url: string;
  expires_at: string;
}

/**
 * Link codes (`POST /v2/link/code/create`): a short code for one user that an app (Junction's
 * Connect app, or the team's) exchanges once for a sign-in token, so a user signs a phone in by
 * typing or scanning a code. The code's first four letters name the environment and region as the
 * SDKs read them (`sk`/`pk` and `us`/`eu`); only its SHA-256 is kept.
 */
@Injectable()
export class LinkCodesService {
  constructor(
    private readonly codes: LinkCodesRepository,
    private readonly users: UsersRepository,
    private readonly teams: TeamSettingsRepository,
    private readonly tokens: SdkTokensService,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async create(team: TeamPrincipal, userId: string, expiresAt?: Date): Promise<LinkCodeView> {
    const now = Date.now();
    if (expiresAt && (expiresAt.getTime() <= now || expiresAt.getTime() > now + MAX_CODE_LIFETIME_MS)) {
      throw validationError(['query', 'expires_at'], 'expires_at must be in the future and at most 7 days away.', expiresAt.toISOString());
    }
    const user = await this.users.findLive(team, userId);
    if (!user) throw notFound('User');
    const expiry = expiresAt ?? new Date(now + this.config.mobile.linkCodeTtlMs);
    const code = `${team.environment === 'production' ? 'pk' : 'sk'}${team.region}${randomCode()}`;
    await this.codes.insert(hashSecretHex(code), user.id, expiry);
    const exchangeUrl = new URL('/v2/link/code/exchange', this.config.api.publicUrl);
    exchangeUrl.searchParams.set('code', code);
    return { code, exchange_url: exchangeUrl.toString(), expires_at: expiry.toISOString() };
  }

  /** `POST /v2/link/code/exchange`: the code, once, for a sign-in token of its user. */
  async exchange(code: string): Promise<{ user_id: string; sign_in_token: string; team: { name: string; logo_url: string | null } }> {
    const user = await this.codes.spend(hashSecretHex(code.trim()));
    if (!user) throw new ApiError(401, 'The link code is invalid, expired or already used.');
    const brand = await this.teams.brandOf(user.teamId);
    return {
      user_id: user.userId,
      sign_in_token: await this.tokens.mintSignInToken(user),
      team: { name: brand?.brandInformation?.company_name ?? brand?.name ?? '', logo_url: brand?.logoUrl ?? null },
    };
  }
}

function randomCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i += 1) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}
