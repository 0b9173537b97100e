import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OrgEntity, type OrgPlan } from '../tenancy/entities';

@Injectable()
export class OrgsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  find(orgId: string): Promise<OrgEntity | null> {
    return this.db.getRepository(OrgEntity).findOneBy({ id: orgId });
  }

  /** A new org; false when the id is taken. */
  async insert(org: { id: string; name: string; plan: OrgPlan }): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`INSERT INTO orgs (id, name, plan) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id`, [
      org.id,
      org.name,
      org.plan,
    ]);
    return rows.length > 0;
  }

  async rename(orgId: string, name: string): Promise<OrgEntity | null> {
    await this.db.getRepository(OrgEntity).update({ id: orgId }, { name });
    return this.find(orgId);
  }
}
