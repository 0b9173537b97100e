import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { Body, Param, Query } from '../../common/request-params';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeTeam } from '../common/access';
import {
  ListAttemptsQuery,
  ListMessagesQuery,
  RecoveredMessagesDto,
  RecoverMessagesDto,
  WebhookAttemptListDto,
  WebhookMessageDto,
  WebhookMessageListDto,
  WebhookMessageParams,
  WebhookMessageWithPayloadDto,
} from './webhook-messages.dto';
import { WebhookMessagesService } from './webhook-messages.service';
import { WebhookParams } from './webhooks.dto';
import { WebhooksService } from './webhooks.service';

/**
 * Deliveries to one webhook endpoint (Svix style): messages (one per event sent there, id = the
 * event id = webhook-id), every attempt with status, latency, error and response excerpt, and a
 * manual retry. Lists are newest first.
 */
@ApiTags('webhook')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team/:team_id/:environment/webhook/:webhook_id')
export class WebhookMessagesController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly messages: WebhookMessagesService,
  ) {}

  @Get('attempts')
  @ApiOperation({ summary: 'List delivery attempts to the endpoint, newest first' })
  @ZodResponse({ status: 200, type: WebhookAttemptListDto })
  async attempts(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams, @Query() query: ListAttemptsQuery) {
    await this.endpoint(key, params);
    return this.messages.listAttempts(params.webhook_id, { limit: query.limit, after: query.next_cursor, status: query.status });
  }

  @Get('messages')
  @ApiOperation({ summary: 'List messages sent (or being sent) to the endpoint, newest first' })
  @ZodResponse({ status: 200, type: WebhookMessageListDto })
  async listMessages(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams, @Query() query: ListMessagesQuery) {
    await this.endpoint(key, params);
    return this.messages.listMessages(params.webhook_id, {
      limit: query.limit,
      after: query.next_cursor,
      status: query.status,
      eventTypes: query.event_types,
    });
  }

  @Get('messages/:message_id')
  @ApiOperation({ summary: 'Get a message with its payload' })
  @ZodResponse({ status: 200, type: WebhookMessageWithPayloadDto })
  async getMessage(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookMessageParams) {
    await this.endpoint(key, params);
    return this.messages.getMessage(params.webhook_id, params.message_id);
  }

  @Get('messages/:message_id/attempts')
  @ApiOperation({ summary: "List a message's attempts to the endpoint, newest first" })
  @ZodResponse({ status: 200, type: WebhookAttemptListDto })
  async messageAttempts(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookMessageParams, @Query() query: ListAttemptsQuery) {
    await this.endpoint(key, params);
    await this.messages.requireMessage(params.webhook_id, params.message_id);
    return this.messages.listAttempts(params.webhook_id, {
      limit: query.limit,
      after: query.next_cursor,
      status: query.status,
      eventId: params.message_id,
    });
  }

  @Post('messages/:message_id/retry')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send the message to the endpoint again now',
    description:
      'Queues a manual attempt (same webhook-id). A pending message has its next attempt brought forward; a finished one (succeeded, exhausted, cancelled) is attempted again. 409 while the endpoint is disabled.',
  })
  @ZodResponse({ status: 202, type: WebhookMessageDto })
  async retry(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookMessageParams) {
    const endpoint = await this.endpoint(key, params);
    return this.messages.retry(params.webhook_id, params.message_id, endpoint.disabled);
  }

  @Post('recover')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send again every failed message since a time (Svix recover)',
    description:
      'Messages created at or after `since` that are exhausted, or were cancelled while the endpoint was disabled, each get a manual attempt now (same webhook-id). 409 while the endpoint is disabled.',
  })
  @ZodResponse({ status: 202, type: RecoveredMessagesDto })
  async recover(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams, @Body() body: RecoverMessagesDto) {
    const endpoint = await this.endpoint(key, params);
    return this.messages.recover(params.webhook_id, new Date(body.since), endpoint.disabled);
  }

  private endpoint(key: ManagementPrincipal, params: WebhookParams) {
    authorizeTeam(key, params.org_id, params.team_id);
    return this.webhooks.get({ orgId: params.org_id, teamId: params.team_id, environment: params.environment }, params.webhook_id);
  }
}
