import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { conflict, notFound } from '../common/errors';
import type { OrgEntity, OrgPlan } from '../tenancy/entities';
import type { OrgView } from './orgs.dto';
import { OrgsRepository } from './orgs.repository';

@Injectable()
export class OrgsService {
  constructor(private readonly orgs: OrgsRepository) {}

  async get(orgId: string): Promise<OrgView> {
    return toView(await this.orgs.find(orgId));
  }

  /** Orgs are made by operators (the ops CLI), not through the management API. */
  async create(name: string, plan: OrgPlan, id: string = randomUUID()): Promise<OrgView & { plan: OrgPlan }> {
    if (!(await this.orgs.insert({ id, name, plan }))) throw conflict(`An org with id ${id} already exists.`);
    return { ...toView(await this.orgs.find(id)), plan };
  }

  async rename(orgId: string, name: string): Promise<OrgView> {
    return toView(await this.orgs.rename(orgId, name));
  }
}

function toView(org: OrgEntity | null): OrgView {
  if (!org) throw notFound('Org');
  return { id: org.id, name: org.name, expires_at: org.expiresAt?.toISOString() ?? null };
}
