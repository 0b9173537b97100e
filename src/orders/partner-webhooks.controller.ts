import { Controller, HttpCode, Post } from '@nestjs/common';
import { Body, Param } from '../common/request-params';
import { ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/principal';
import { LimitedPerAddress } from '../rate-limits/rate-limit-family';
import { CourierTrackingDto, LabEventDto, PartnerParams } from './orders.dto';
import { PartnerSigned } from '../adapters/partner-signature';
import { PartnerWebhooksService } from './partner-webhooks';
import { ZodResponse } from 'nestjs-zod';
import { PartnerCallbackResponse } from './order-responses.dto';

/**
 * Inbound webhooks of labflow's partners (no team key: HMAC-signed with PARTNER_WEBHOOK_SECRET,
 * see partner-webhooks.ts). Each becomes a signal of the order's workflow.
 */
@ApiTags('partner webhooks')
@Controller('v3/webhooks')
@Public()
@LimitedPerAddress('partnerWebhooks')
export class PartnerWebhooksController {
  constructor(private readonly webhooks: PartnerWebhooksService) {}

  @Post('courier/:partner')
  @PartnerSigned()
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PartnerCallbackResponse })
  courier(@Param() params: PartnerParams, @Body() body: CourierTrackingDto) {
    return this.webhooks.courier(params.partner, body);
  }

  @Post('lab/:partner')
  @PartnerSigned()
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PartnerCallbackResponse })
  lab(@Param() params: PartnerParams, @Body() body: LabEventDto) {
    return this.webhooks.lab(params.partner, body);
  }
}
