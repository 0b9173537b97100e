import { Controller, Get, Patch } from '@nestjs/common';
import { Body, Param, Query } from '../common/request-params';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { type PatchSourcePriorities, PatchSourcePrioritiesDto, SourcePrioritiesQuery, TeamParams, UserSearchQuery } from './team.dto';
import { SourcePrioritiesService } from './source-priorities.service';
import { TeamService } from './team.service';
import { ZodResponse } from 'nestjs-zod';
import { ClientFacingTeamResponse, PhysicianListResponse, SourcePriorityListResponse } from './team-responses.dto';
import { UserArrayResponse } from '../users/user-responses.dto';

/** The key's own team (`/v2/team/...`). */
@ApiTags('team')
@ApiSecurity('team-api-key')
@Controller('v2/team')
export class TeamController {
  constructor(
    private readonly team: TeamService,
    private readonly priorities: SourcePrioritiesService,
  ) {}

  @Get('users/search')
  @ZodResponse({ status: 200, type: UserArrayResponse })
  searchUsers(@CurrentTeam() team: TeamPrincipal, @Query() query: UserSearchQuery) {
    return this.team.searchUsers(team, query.query_id);
  }

  @Get('source/priorities')
  @ApiOperation({ summary: "The team's source priorities: for each data type, which provider wins when two report the same data (1 first)." })
  @ZodResponse({ status: 200, type: SourcePriorityListResponse })
  sourcePriorities(@CurrentTeam() team: TeamPrincipal, @Query() query: SourcePrioritiesQuery) {
    return this.priorities.list(team, query.data_type);
  }

  @Patch('source/priorities')
  @ApiOperation({
    summary:
      'Ranks providers per data type ([{data_type, source, priority}], priority null to drop one) and answers the priorities. No body (what the SDK sends) changes nothing.',
  })
  @ZodResponse({ status: 200, type: SourcePriorityListResponse })
  updateSourcePriorities(@CurrentTeam() team: TeamPrincipal, @Body() body?: PatchSourcePrioritiesDto) {
    return this.priorities.update(team, body as PatchSourcePriorities);
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
