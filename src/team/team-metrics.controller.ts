import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { TeamMetricsService } from './team-metrics.service';
import { ZodResponse } from 'nestjs-zod';
import { TeamMetricsResponse } from './team-responses.dto';

/** `GET /v2/user/metrics`: under /v2/user as Junction has it, though it is about the team. */
@ApiTags('team')
@ApiSecurity('team-api-key')
@Controller('v2/user')
export class TeamMetricsController {
  constructor(private readonly metrics: TeamMetricsService) {}

  @Get('metrics')
  @ApiOperation({ summary: "The team's users, connected sources (and by week) and ordered tests, in numbers." })
  @ZodResponse({ status: 200, type: TeamMetricsResponse })
  get(@CurrentTeam() team: TeamPrincipal) {
    return this.metrics.metrics(team);
  }
}
