import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { Body, Param, Query } from '../../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeTeam } from '../common/access';
import { OrgTeamParams } from '../teams/teams.dto';
import {
  Hl7MessageDetailDto,
  Hl7MessageDto,
  Hl7MessageListDto,
  ListHeldMessagesQuery,
  OrgTeamMessageParams,
  OrgTeamOrderParams,
  RematchMessageDto,
} from './hl7-messages.dto';
import { Hl7MessagesService } from './hl7-messages.service';

/** HL7 messages exchanged with a team's labs: envelopes only (bodies: the ops CLI, audited). */
@ApiTags('hl7_messages')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team/:team_id')
export class Hl7MessagesController {
  constructor(private readonly messages: Hl7MessagesService) {}

  /** The messages in and out of one of the team's orders, oldest first. */
  @Get('order/:order_id/hl7_messages')
  @ZodResponse({ status: 200, type: Hl7MessageListDto })
  ofOrder(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgTeamOrderParams) {
    authorizeTeam(key, params.org_id, params.team_id);
    return this.messages.ofOrder(params.org_id, params.team_id, params.order_id);
  }

  /** Messages from the team's own lab accounts that matched no order, held for review. */
  @Get('hl7_messages/held')
  @ZodResponse({ status: 200, type: Hl7MessageListDto })
  held(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgTeamParams, @Query() query: ListHeldMessagesQuery) {
    authorizeTeam(key, params.org_id, params.team_id);
    return this.messages.held(params.org_id, params.team_id, query.limit);
  }

  @Get('hl7_messages/:message_id')
  @ZodResponse({ status: 200, type: Hl7MessageDetailDto })
  show(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgTeamMessageParams) {
    authorizeTeam(key, params.org_id, params.team_id);
    return this.messages.show(params.org_id, params.team_id, params.message_id);
  }

  /** Matches a held message again and hands it to its order. */
  @Post('hl7_messages/:message_id/rematch')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: Hl7MessageDto })
  rematch(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgTeamMessageParams, @Body() body: RematchMessageDto) {
    authorizeTeam(key, params.org_id, params.team_id);
    return this.messages.rematch(params.org_id, params.team_id, params.message_id, body.order_id);
  }
}
