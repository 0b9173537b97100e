import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OrgEntity } from '../tenancy/entities';

@Injectable()
export class OrgsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  find(orgId: string): Promise<OrgEntity | null> {
    return this.db.getRepository(OrgEntity).findOneBy({ id: orgId });
  }

  async rename(orgId: string, name: string): Promise<OrgEntity | null> {
    await this.db.getRepository(OrgEntity).update({ id: orgId }, { name });
    return this.find(orgId);
  }
}
