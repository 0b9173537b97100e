import { Controller, Get, Patch } from '@nestjs/common';
import { Body, Param } from '../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { UserInfoDto, UserInfoParams } from './user-info.dto';
import { UserInfoService } from './user-info.service';
import { ZodResponse } from 'nestjs-zod';

/** A user's demographics (Junction's user info). */
@ApiTags('user')
@ApiSecurity('team-api-key')
@Controller('v2/user/:user_id')
export class UserInfoController {
  constructor(private readonly infos: UserInfoService) {}

  @Patch('info')
  @ZodResponse({ status: 200, type: UserInfoDto })
  upsert(@CurrentTeam() team: TeamPrincipal, @Param() params: UserInfoParams, @Body() body: UserInfoDto) {
    return this.infos.upsert(team, params.user_id, body);
  }

  @Get('info/latest')
  @ZodResponse({ status: 200, type: UserInfoDto })
  latest(@CurrentTeam() team: TeamPrincipal, @Param() params: UserInfoParams) {
    return this.infos.latest(team, params.user_id);
  }
}
