import { Controller, Get } from '@nestjs/common';
import { Query } from '../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { IntrospectQuery, ProvidersQuery } from './health-data.dto';
import { IntrospectionService } from './introspection.service';
import { ZodResponse } from 'nestjs-zod';
import { HistoricalPullIntrospectionResponse, ProviderListResponse, ResourcesIntrospectionResponse } from './health-data-responses.dto';

@ApiTags('introspect')
@ApiSecurity('team-api-key')
@Controller('v2')
export class IntrospectionController {
  constructor(private readonly introspection: IntrospectionService) {}

  @Get('introspect/resources')
  @ZodResponse({ status: 200, type: ResourcesIntrospectionResponse })
  resources(@CurrentTeam() team: TeamPrincipal, @Query() query: IntrospectQuery) {
    return this.introspection.resources(team, query);
  }

  @Get('introspect/historical_pull')
  @ZodResponse({ status: 200, type: HistoricalPullIntrospectionResponse })
  historicalPulls(@CurrentTeam() team: TeamPrincipal, @Query() query: IntrospectQuery) {
    return this.introspection.historicalPulls(team, query);
  }

  @Get('providers')
  @ZodResponse({ status: 200, type: ProviderListResponse })
  providers(@Query() query: ProvidersQuery) {
    return this.introspection.providers(query);
  }
}
