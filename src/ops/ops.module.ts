import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { ManagementKeysModule } from '../management/keys/management-keys.module';
import { OrgsRepository } from '../management/orgs.repository';
import { OrgsService } from '../management/orgs.service';
import { TeamApiKeysModule } from '../management/team-api-keys/team-api-keys.module';
import { TeamsModule } from '../management/teams/teams.module';
import { WebhookPortalSessionsRepository } from '../management/webhooks/webhook-portal-sessions.repository';
import { WebhookPortalSessionsService } from '../management/webhooks/webhook-portal-sessions.service';
import { OrdersModule } from '../orders/orders.module';
import { Hl7Module } from '../hl7/hl7.module';
import { Hl7OpsService } from './hl7-ops.service';
import { KeyAdminService } from './key-admin.service';
import { OpsQueriesService } from './ops-queries.service';
import { PhiAccessReadModel } from './phi-access-read-model';
import { PhiRekeyRepository } from './phi-rekey.repository';
import { PhiRekeyService } from './phi-rekey.service';

/**
 * What the ops CLI (src/cli.ts) does that the HTTP APIs do not: make orgs and their first keys,
 * rotate and revoke any key by id, replay a delivery, read the PHI access log and an order's
 * story, seal PHI again after the PHI key was rotated. The rules stay with their modules'
 * services; this module adds the operator's views. Nothing here starts background work.
 */
@Module({
  imports: [TeamsModule, ManagementKeysModule, TeamApiKeysModule, EventsModule, OrdersModule, Hl7Module],
  providers: [
    OrgsRepository,
    OrgsService,
    PhiAccessReadModel,
    KeyAdminService,
    OpsQueriesService,
    PhiRekeyRepository,
    PhiRekeyService,
    Hl7OpsService,
    WebhookPortalSessionsRepository,
    WebhookPortalSessionsService,
  ],
  exports: [OrgsService, KeyAdminService, OpsQueriesService, PhiRekeyService, Hl7OpsService, WebhookPortalSessionsService],
})
export class OpsModule {}
