import { Controller, Get, Query } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { IntrospectQuery, ProvidersQuery } from './health-data.dto';
import { IntrospectionService } from './introspection.service';

@ApiTags('introspect')
@ApiSecurity('team-api-key')
@Controller('v2')
export class IntrospectionController {
  constructor(private readonly introspection: IntrospectionService) {}

  @Get('introspect/resources')
  resources(@CurrentTeam() team: TeamPrincipal, @Query() query: IntrospectQuery) {
    return this.introspection.resources(team, query);
  }

  @Get('introspect/historical_pull')
  historicalPulls(@CurrentTeam() team: TeamPrincipal, @Query() query: IntrospectQuery) {
    return this.introspection.historicalPulls(team, query);
  }

  @Get('providers')
  providers(@Query() query: ProvidersQuery) {
    return this.introspection.providers(query);
  }
}
