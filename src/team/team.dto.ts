import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';

export class TeamParams extends createZodDto(z.object({ team_id: z.uuid() })) {}

export class UserSearchQuery extends createZodDto(z.object({ query_id: z.string().trim().min(1).max(255).describe('A user id or a client_user_id.') })) {}
