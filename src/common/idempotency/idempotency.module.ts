import { Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';
import { PartnerReceiptsRepository } from './partner-receipts.repository';

/** Idempotency keys for every idempotent route (order creation, PSC booking), and partner webhooks' event ids. */
@Module({
  providers: [IdempotencyRepository, IdempotencyService, PartnerReceiptsRepository],
  exports: [IdempotencyService, PartnerReceiptsRepository],
})
export class IdempotencyModule {}
