import { Controller, HttpCode, Post } from '@nestjs/common';
import { Body } from '../common/request-params';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/principal';
import { LimitedPerAddress } from '../rate-limits/rate-limit-family';
import { WhoopSigned } from '../adapters/whoop/whoop-webhook';
import { WhoopWebhookDto } from './connections.dto';
import { ConnectionsService } from './connections.service';

/**
 * Webhooks of the real providers labflow pulls data from (no team key: each is signed the
 * provider's way). They only say that a member's data changed; the connection then syncs at once
 * through its workflow, as on its timer, so nothing here reads or writes data itself.
 */
@ApiTags('provider webhooks')
@Controller('v3/webhooks/provider')
@Public()
@LimitedPerAddress('partnerWebhooks')
export class ProviderWebhooksController {
  constructor(private readonly connections: ConnectionsService) {}

  /**
   * The URL to set as the Webhook URL (model version v2) of labflow's app in WHOOP's developer
   * dashboard (README, "Real providers: WHOOP").
   */
  @Post('whoop_v2')
  @WhoopSigned()
  @HttpCode(204)
  @ApiOperation({ summary: "WHOOP's webhook: the member's connections sync now (signed with labflow's WHOOP client secret)." })
  async whoop(@Body() body: WhoopWebhookDto): Promise<void> {
    await this.connections.providerWebhook('whoop_v2', String(body.user_id), body.type, body.trace_id);
  }
}
