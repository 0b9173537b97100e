import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { UserInfoDto, UserInfoParams } from './user-info.dto';
import { UserInfoService } from './user-info.service';

/** A user's demographics (Junction's user info). */
@ApiTags('user')
@ApiSecurity('team-api-key')
@Controller('v2/user/:user_id')
export class UserInfoController {
  constructor(private readonly infos: UserInfoService) {}

  @Patch('info')
  upsert(@CurrentTeam() team: TeamPrincipal, @Param() params: UserInfoParams, @Body() body: UserInfoDto) {
    return this.infos.upsert(team, params.user_id, body);
  }

  @Get('info/latest')
  latest(@CurrentTeam() team: TeamPrincipal, @Param() params: UserInfoParams) {
    return this.infos.latest(team, params.user_id);
  }
}
