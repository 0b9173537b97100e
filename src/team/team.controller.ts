import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { TeamParams, UserSearchQuery } from './team.dto';
import { TeamService } from './team.service';
import { ZodResponse } from 'nestjs-zod';
import { ClientFacingTeamResponse, PhysicianListResponse } from './team-responses.dto';
import { UserArrayResponse } from '../users/user-responses.dto';

/** The key's own team (`/v2/team/...`). */
@ApiTags('team')
@ApiSecurity('team-api-key')
@Controller('v2/team')
export class TeamController {
  constructor(private readonly team: TeamService) {}

  @Get('users/search')
  @ZodResponse({ status: 200, type: UserArrayResponse })
  searchUsers(@CurrentTeam() team: TeamPrincipal, @Query() query: UserSearchQuery) {
    return this.team.searchUsers(team, query.query_id);
  }

  @Get(':team_id/physicians')
  @ZodResponse({ status: 200, type: PhysicianListResponse })
  physicians(@CurrentTeam() team: TeamPrincipal, @Param() params: TeamParams) {
    return this.team.physicians(team, params.team_id);
  }

  @Get(':team_id')
  @ZodResponse({ status: 200, type: ClientFacingTeamResponse })
  get(@CurrentTeam() team: TeamPrincipal, @Param() params: TeamParams) {
    return this.team.get(team, params.team_id);
  }
}
