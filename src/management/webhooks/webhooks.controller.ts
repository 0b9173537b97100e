import { Controller, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { Body, Param, Query } from '../../common/request-params';
import { ApiNoContentResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeTeam } from '../common/access';
import {
  CreateWebhookDto,
  ListWebhooksQuery,
  PatchWebhookDto,
  RotateSecretDto,
  WebhookDto,
  WebhookHeadersDto,
  WebhookHeadersViewDto,
  WebhookListDto,
  WebhookParams,
  WebhookSecretDto,
  WebhooksParams,
} from './webhooks.dto';
import { type WebhookTarget, WebhooksService } from './webhooks.service';

/** Webhook endpoints of a team: org keys, or team-admin keys bound to the team. */
@ApiTags('webhook')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team/:team_id/:environment/webhook')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ZodResponse({ status: 200, type: WebhookListDto })
  list(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhooksParams, @Query() query: ListWebhooksQuery) {
    return this.webhooks.list(target(key, params), query.limit, query.next_cursor);
  }

  @Post()
  @ZodResponse({ status: 200, type: WebhookDto })
  create(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhooksParams, @Body() body: CreateWebhookDto) {
    return this.webhooks.create(target(key, params), body);
  }

  @Get(':webhook_id')
  @ZodResponse({ status: 200, type: WebhookDto })
  get(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams) {
    return this.webhooks.get(target(key, params), params.webhook_id);
  }

  @Patch(':webhook_id')
  @ZodResponse({ status: 200, type: WebhookDto })
  patch(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams, @Body() body: PatchWebhookDto) {
    return this.webhooks.patch(target(key, params), params.webhook_id, body);
  }

  @Delete(':webhook_id')
  @HttpCode(204)
  @ApiNoContentResponse()
  async delete(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams): Promise<void> {
    await this.webhooks.delete(target(key, params), params.webhook_id);
  }

  @Get(':webhook_id/headers')
  @ZodResponse({ status: 200, type: WebhookHeadersViewDto })
  getHeaders(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams) {
    return this.webhooks.getHeaders(target(key, params), params.webhook_id);
  }

  @Put(':webhook_id/headers')
  @HttpCode(204)
  @ApiNoContentResponse()
  async putHeaders(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams, @Body() body: WebhookHeadersDto): Promise<void> {
    await this.webhooks.putHeaders(target(key, params), params.webhook_id, body);
  }

  @Get(':webhook_id/secret')
  @ZodResponse({ status: 200, type: WebhookSecretDto })
  getSecret(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams) {
    return this.webhooks.getSecret(target(key, params), params.webhook_id);
  }

  @Post(':webhook_id/secret/rotate')
  @HttpCode(204)
  @ApiNoContentResponse()
  async rotateSecret(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhookParams, @Body() body: RotateSecretDto): Promise<void> {
    await this.webhooks.rotateSecret(target(key, params), params.webhook_id, body.key);
  }
}

/** Authorizes the key for the team in the path and names the endpoint collection. */
function target(key: ManagementPrincipal, params: WebhooksParams): WebhookTarget {
  authorizeTeam(key, params.org_id, params.team_id);
  return { orgId: params.org_id, teamId: params.team_id, environment: params.environment };
}
