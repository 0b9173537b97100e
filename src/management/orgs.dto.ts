import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../common/openapi';

export class PatchOrgDto extends createZodDto(z.strictObject({ name: z.string().trim().min(1).max(255) })) {}

const org = z.object({ id: z.string(), name: z.string(), expires_at: z.string().nullable() });
export class OrgDto extends responseDto(org) {}
export type OrgView = z.input<typeof org>;
