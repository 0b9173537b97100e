import { Injectable } from '@nestjs/common';
import { notFound } from '../common/errors';
import type { OrgEntity } from '../tenancy/entities';
import type { OrgView } from './orgs.dto';
import { OrgsRepository } from './orgs.repository';

@Injectable()
export class OrgsService {
  constructor(private readonly orgs: OrgsRepository) {}

  async get(orgId: string): Promise<OrgView> {
    return toView(await this.orgs.find(orgId));
  }

  async rename(orgId: string, name: string): Promise<OrgView> {
    return toView(await this.orgs.rename(orgId, name));
  }
}

function toView(org: OrgEntity | null): OrgView {
  if (!org) throw notFound('Org');
  return { id: org.id, name: org.name, expires_at: org.expiresAt?.toISOString() ?? null };
}
