import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { Body, Param, Query } from '../common/request-params';
import { UserTokenRoute } from '../auth/user-tokens';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { ClientUserIdParams, CreateUserDto, ListUsersQuery, PatchUserDto, UndoDeleteQuery, UserIdParams } from './users.dto';
import { UsersService } from './users.service';
import { ZodResponse } from 'nestjs-zod';
import { SuccessResponse } from '../common/openapi';
import { UserListResponse, UserResponse } from './user-responses.dto';

@ApiTags('user')
@ApiSecurity('team-api-key')
@Controller('v2/user')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @HttpCode(200)
  @ZodResponse({ status: 200, type: UserResponse })
  create(@CurrentTeam() team: TeamPrincipal, @Body() body: CreateUserDto) {
    return this.users.create(team, body);
  }

  @Get()
  @ZodResponse({ status: 200, type: UserListResponse })
  list(@CurrentTeam() team: TeamPrincipal, @Query() query: ListUsersQuery) {
    return this.users.list(team, query.offset, query.limit);
  }

  @Get('resolve/:client_user_id')
  @ZodResponse({ status: 200, type: UserResponse })
  resolve(@CurrentTeam() team: TeamPrincipal, @Param() params: ClientUserIdParams) {
    return this.users.resolve(team, params.client_user_id);
  }

  @Post('undo_delete')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: SuccessResponse })
  undoDelete(@CurrentTeam() team: TeamPrincipal, @Query() query: UndoDeleteQuery) {
    return this.users.undoDeletion(team, query);
  }

  @Get(':user_id')
  @UserTokenRoute()
  @ZodResponse({ status: 200, type: UserResponse })
  get(@CurrentTeam() team: TeamPrincipal, @Param() params: UserIdParams) {
    return this.users.get(team, params.user_id);
  }

  @Patch(':user_id')
  @HttpCode(204)
  async patch(@CurrentTeam() team: TeamPrincipal, @Param() params: UserIdParams, @Body() body: PatchUserDto) {
    await this.users.patch(team, params.user_id, body);
  }

  @Delete(':user_id')
  @ZodResponse({ status: 200, type: SuccessResponse })
  remove(@CurrentTeam() team: TeamPrincipal, @Param() params: UserIdParams) {
    return this.users.requestDeletion(team, params.user_id);
  }
}
