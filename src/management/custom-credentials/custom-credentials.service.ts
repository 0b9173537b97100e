import { Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { ManagementPrincipal } from '../../auth/principal';
import { PhiCipher } from '../../common/crypto';
import type { ApiEnvironment, Region } from '../../tenancy/entities';
import { canActOnTeam, teamRestriction } from '../common/access';
import type { KeysetPosition } from '../../common/keyset-cursor';
import { type BulkResult, PAGE_SIZE } from '../common/params';
import { TeamLookup } from '../teams/team-lookup';
import { CustomCredentialEntity } from './custom-credential.entity';
import type { CustomCredentialView, ListCustomCredentialsQuery, UpsertCustomCredentialDto } from './custom-credentials.dto';
import { CustomCredentialsRepository } from './custom-credentials.repository';

export interface CredentialsScope {
  environment: ApiEnvironment;
  region: Region;
}

/** Team custom credentials: the client secret is encrypted at rest and only its hash is shown. */
@Injectable()
export class CustomCredentialsService {
  constructor(
    private readonly credentials: CustomCredentialsRepository,
    private readonly teams: TeamLookup,
    private readonly cipher: PhiCipher,
  ) {}

  async list(caller: ManagementPrincipal, scope: CredentialsScope, query: ListCustomCredentialsQuery) {
    if (query.team_id) await this.teams.requireInOrg(caller.orgId, query.team_id);
    const page = await this.credentials.listPage(
      { orgId: caller.orgId, ...scope },
      { teamId: query.team_id, provider: query.provider, onlyTeamIds: teamRestriction(caller) ?? undefined },
      query.next_cursor as KeysetPosition | undefined,
      PAGE_SIZE,
    );
    return { credentials: page.items.map(toView), next_cursor: page.nextCursor };
  }

  async upsert(orgId: string, scope: CredentialsScope, body: UpsertCustomCredentialDto): Promise<CustomCredentialView> {
    await this.teams.requireInRegion(orgId, body.team_id, scope.region, ['path', 'region']);
    const key = { teamId: body.team_id, provider: body.provider, ...scope };
    const apply = (credential: CustomCredentialEntity) => {
      if (body.client_id !== undefined) credential.clientId = body.client_id;
      if (body.client_secret !== undefined) {
        credential.clientSecretEnc = body.client_secret === null ? null : this.cipher.encrypt(body.client_secret);
        credential.clientSecretHash = body.client_secret === null ? null : sha256Hex(body.client_secret);
      }
      if (body.redirect_url_override !== undefined) credential.redirectUrlOverride = body.redirect_url_override;
      if (body.details !== undefined) credential.detailsEnc = body.details === null ? null : this.cipher.encryptJson(body.details);
    };
    const saved = await this.credentials.upsert(
      key,
      () => {
        const credential = Object.assign(new CustomCredentialEntity(), {
          id: randomUUID(),
          ...key,
          clientId: null,
          clientSecretEnc: null,
          clientSecretHash: null,
          redirectUrlOverride: null,
          detailsEnc: null,
          source: 'custom',
        });
        apply(credential);
        return credential;
      },
      apply,
    );
    return toView(saved);
  }

  /**
   * Deletes credentials: `success`, or `not_found` for an id that is no credential of this org,
   * environment and region and for one of a team the caller is not bound to alike (a team-admin
   * key learns nothing of other teams' credentials). `failure` stays empty.
   */
  async delete(caller: ManagementPrincipal, scope: CredentialsScope, ids: string[]): Promise<BulkResult> {
    const unique = [...new Set(ids)];
    const found = new Map((await this.credentials.findInScope({ orgId: caller.orgId, ...scope }, unique)).map((c) => [c.id, c]));
    const result: BulkResult = { success: [], failure: [], not_found: [] };
    for (const id of unique) {
      const credential = found.get(id);
      if (credential && canActOnTeam(caller, credential.teamId)) result.success.push(id);
      else result.not_found.push(id);
    }
    await this.credentials.delete(result.success);
    return result;
  }
}

function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function toView(credential: CustomCredentialEntity): CustomCredentialView {
  return {
    id: credential.id,
    team_id: credential.teamId,
    provider: credential.provider,
    client_id: credential.clientId,
    client_secret_hash: credential.clientSecretHash,
    redirect_url_override: credential.redirectUrlOverride,
    source: credential.source,
    created_at: credential.createdAt.toISOString(),
    updated_at: credential.updatedAt.toISOString(),
  };
}
