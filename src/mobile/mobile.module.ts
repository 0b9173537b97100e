import { Module } from '@nestjs/common';
import { USER_TOKEN_VERIFIER } from '../auth/user-tokens';
import { ConnectionsModule } from '../connections/connections.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { UsersModule } from '../users/users.module';
import { LinkCodesController } from './link-codes.controller';
import { LinkCodesRepository } from './link-codes.repository';
import { LinkCodesService } from './link-codes.service';
import { SdkSignInController, SdkTokenController } from './sdk-auth.controller';
import { SdkSyncRepository } from './sdk-sync.repository';
import { SdkSyncService } from './sdk-sync.service';
import { SdkTokensService } from './sdk-tokens.service';
import { SigningKeys } from './signing-keys';
import { SigningKeysRepository } from './signing-keys.repository';

/**
 * The mobile SDKs' side of the API (docs/mobile.md): sign-in tokens and their exchange, access
 * tokens (USER_TOKEN_VERIFIER, which the key guard asks), the signing keys and their JWKS, link
 * codes.
 */
@Module({
  imports: [UsersModule, TenancyModule, ConnectionsModule],
  controllers: [SdkSignInController, SdkTokenController, LinkCodesController],
  providers: [
    SigningKeysRepository,
    SigningKeys,
    SdkTokensService,
    SdkSyncService,
    SdkSyncRepository,
    LinkCodesRepository,
    LinkCodesService,
    { provide: USER_TOKEN_VERIFIER, useExisting: SdkTokensService },
  ],
  exports: [USER_TOKEN_VERIFIER],
})
export class MobileModule {}
