import { Controller, Get, Param } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { createZodDto } from 'nestjs-zod';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../auth/principal';
import { notFound } from '../common/errors';
import { OrgEntity } from '../tenancy/entities';

class OrgIdParams extends createZodDto(z.object({ org_id: z.uuid() })) {}

@ApiTags('org')
@ApiSecurity('management-key')
@Controller('v1/org')
export class OrgsController {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @Get(':org_id')
  async get(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgIdParams) {
    // A key never sees another org: a foreign org id answers as if it did not exist.
    if (params.org_id !== key.orgId) throw notFound('Org');
    const org = await this.db.getRepository(OrgEntity).findOneByOrFail({ id: key.orgId });
    return { id: org.id, name: org.name, expires_at: null };
  }
}
