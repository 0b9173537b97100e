import { Body, Controller, HttpCode, Logger, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/principal';
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
export class ProviderWebhooksController {
  private readonly logger = new Logger('connections');

  constructor(private readonly connections: ConnectionsService) {}

  /**
   * The URL to set as the Webhook URL (model version v2) of labflow's app in WHOOP's developer
   * dashboard. A deletion at WHOOP is acknowledged and not applied: labflow keeps what it stored.
   */
  @Post('whoop_v2')
  @WhoopSigned()
  @HttpCode(204)
  @ApiOperation({ summary: "WHOOP's webhook: the member's connections sync now (signed with labflow's WHOOP client secret)." })
  async whoop(@Body() body: WhoopWebhookDto): Promise<void> {
    const syncs = body.type.endsWith('.deleted') ? 0 : await this.connections.providerDataChanged('whoop_v2', String(body.user_id));
    this.logger.log(`whoop_v2 webhook ${body.type} (trace ${body.trace_id ?? '-'}): ${syncs} connection(s) asked to sync`);
  }
}
