import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { TeamService } from './team.service';

class TeamParams extends createZodDto(z.object({ team_id: z.uuid() })) {}
class UserSearchQuery extends createZodDto(z.object({ query_id: z.string().trim().min(1).max(255).describe('A user id or a client_user_id.') })) {}

/** The key's own team (`/v2/team/...`). */
@ApiTags('team')
@ApiSecurity('team-api-key')
@Controller('v2/team')
export class TeamController {
  constructor(private readonly team: TeamService) {}

  @Get('users/search')
  searchUsers(@CurrentTeam() team: TeamPrincipal, @Query() query: UserSearchQuery) {
    return this.team.searchUsers(team, query.query_id);
  }

  @Get(':team_id')
  get(@CurrentTeam() team: TeamPrincipal, @Param() params: TeamParams) {
    return this.team.get(team, params.team_id);
  }
}
