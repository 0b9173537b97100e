import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module';
import { PortalModule } from '../portal/portal.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { UsersModule } from '../users/users.module';
import { LinkPagesController } from './link-pages.controller';
import { LinkTokensRepository } from './link-tokens.repository';
import { LinkController, TeamLinkConfigController } from './link.controller';
import { LinkService } from './link.service';
import { LinkBulkOpWorkflows } from './link-bulk-op-workflows';
import { LinkMigrationController } from './link-migration.controller';
import { LinkMigrationService } from './link-migration.service';
import { OuraProviderAuth } from '../adapters/oura/oura-provider-auth';
import { DexcomProviderAuth } from '../adapters/dexcom/dexcom-provider-auth';
import { WhoopProviderAuth } from '../adapters/whoop/whoop-provider-auth';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { PROVIDER_AUTH, type ProviderAuths } from '../adapters/sources/provider-auth';
import { SandboxProviderAuth } from './sandbox-provider-auth';

/**
 * Junction's Link: link tokens, the hosted Link page, and provider sign-in (OAuth, password with
 * a second factor, e-mail invitation) ending in a connection (src/connections), and Link
 * Migration (bulk import, export, pause and historical pull of OAuth connections).
 */
@Module({
  // PortalModule: the hosted Link page wears the team's portal brand.
  imports: [UsersModule, ConnectionsModule, PortalModule, TenancyModule],
  controllers: [LinkController, TeamLinkConfigController, LinkPagesController, LinkMigrationController],
  providers: [
    LinkTokensRepository,
    LinkService,
    LinkMigrationService,
    LinkBulkOpWorkflows,
    SandboxProviderAuth,
    {
      // Real providers' sign-in where configured (production), then the sandbox's.
      provide: PROVIDER_AUTH,
      inject: [LABFLOW_CONFIG, SandboxProviderAuth],
      useFactory: (config: LabflowConfig, sandbox: SandboxProviderAuth): ProviderAuths => [
        ...(config.providers.oura ? [new OuraProviderAuth(config.providers.oura)] : []),
        ...(config.providers.dexcom ? [new DexcomProviderAuth(config.providers.dexcom)] : []),
        ...(config.providers.whoop ? [new WhoopProviderAuth(config.providers.whoop)] : []),
        sandbox,
      ],
    },
  ],
})
export class LinkModule {}
