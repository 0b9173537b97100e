import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { Body, Param, Query } from '../common/request-params';
import { UserTokenRoute } from '../auth/user-tokens';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { ConnectDemoDto, ConnectionProviderParams, ConnectionUserParams, RefreshQuery } from './connections.dto';
import { ConnectionsService } from './connections.service';
import { ZodResponse } from 'nestjs-zod';
import { SuccessResponse } from '../common/openapi';
import { ConnectDemoResponse, RefreshResponse, UserProvidersResponse } from './connection-responses.dto';

/** Connected data sources: Junction's link (demo) and user-provider routes. */
@ApiTags('connections')
@ApiSecurity('team-api-key')
@Controller()
export class ConnectionsController {
  constructor(private readonly connections: ConnectionsService) {}

  @Post('v2/link/connect/demo')
  @HttpCode(200)
  @ApiOperation({ summary: 'Connect a demo provider (sandbox): 30 days of generated history, then new data on a timer.' })
  @ZodResponse({ status: 200, type: ConnectDemoResponse })
  connectDemo(@CurrentTeam() team: TeamPrincipal, @Body() body: ConnectDemoDto) {
    return this.connections.connectDemo(team, body.user_id, body.provider);
  }

  @Get('v2/user/providers/:user_id')
  @UserTokenRoute()
  @ApiOperation({ summary: "The user's connected providers with their status." })
  @ZodResponse({ status: 200, type: UserProvidersResponse })
  providers(@CurrentTeam() team: TeamPrincipal, @Param() params: ConnectionUserParams) {
    return this.connections.providers(team, params.user_id);
  }

  @Post('v2/user/refresh/:user_id')
  @HttpCode(200)
  @ApiOperation({ summary: "Sync every one of the user's connections now." })
  @ZodResponse({ status: 200, type: RefreshResponse })
  refresh(@CurrentTeam() team: TeamPrincipal, @Param() params: ConnectionUserParams, @Query() query: RefreshQuery) {
    return this.connections.refresh(team, params.user_id, query.timeout);
  }

  @Delete('v2/user/:user_id/:provider')
  @UserTokenRoute()
  @ApiOperation({ summary: 'Deregister a provider: the connection ends, stored data stays.' })
  @ZodResponse({ status: 200, type: SuccessResponse })
  deregister(@CurrentTeam() team: TeamPrincipal, @Param() params: ConnectionProviderParams) {
    return this.connections.deregister(team, params.user_id, params.provider);
  }
}
