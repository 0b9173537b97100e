import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { notFound } from '../common/errors';
import type { UserInfo } from './user-info.dto';
import { UserInfoRepository } from './user-info.repository';
import { UsersRepository } from './users.repository';

/**
 * A user's demographics (Junction's user info): only for a live user of the caller's team and
 * environment, stored only as AES-256-GCM ciphertext, every read and write audited.
 */
@Injectable()
export class UserInfoService {
  constructor(
    private readonly infos: UserInfoRepository,
    private readonly users: UsersRepository,
    private readonly cipher: PhiCipher,
  ) {}

  /** `PATCH /v2/user/{user_id}/info`: replaces what was on file, answers what is now. */
  async upsert(team: TeamPrincipal, userId: string, info: UserInfo): Promise<UserInfo> {
    await this.requireLiveUser(team, userId);
    await this.infos.upsertAudited(userId, this.cipher.encryptJson(info), accessBy(team));
    return info;
  }

  /** `GET /v2/user/{user_id}/info/latest`: 404 until info was given. */
  async latest(team: TeamPrincipal, userId: string): Promise<UserInfo> {
    await this.requireLiveUser(team, userId);
    const sealed = await this.infos.find(userId);
    if (!sealed) throw notFound('User info');
    const info = this.cipher.decryptJson<UserInfo>(sealed);
    await this.infos.logRead(userId, accessBy(team));
    return info;
  }

  /**
   * The user's info as labflow itself reads it to reach the patient (portal codes, reminders):
   * null when none was given. Not a read on the team's behalf, so not audited as one, as the
   * contact details labflow takes from orders are not.
   */
  async onFile(userId: string): Promise<UserInfo | null> {
    const sealed = await this.infos.find(userId);
    return sealed ? this.cipher.decryptJson<UserInfo>(sealed) : null;
  }

  private async requireLiveUser(team: TeamPrincipal, userId: string): Promise<void> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
  }
}

function accessBy(team: TeamPrincipal) {
  return { teamId: team.teamId, apiKeyId: team.apiKeyId ?? null };
}
