import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { orgEnvRegionParams, orgIdParams } from './params';

export class SuccessDto extends responseDto(z.object({ success: z.boolean() })) {}

/** `{success, failure, not_found}` of a bulk delete (ids in each). */
export class BulkResultDto extends responseDto(z.object({ success: z.array(z.string()), failure: z.array(z.string()), not_found: z.array(z.string()) })) {}

export class OrgIdParams extends createZodDto(orgIdParams) {}

/** `/v1/org/{org_id}/.../{env}/{region}` */
export class OrgEnvRegionParams extends createZodDto(orgEnvRegionParams) {}
