export { fingerprint, type IdempotencyHeader, keyUsedForAnotherRequest, requireValidKey } from './idempotency-key';
export { IdempotencyModule } from './idempotency.module';
export { type CompleteIdempotently, type IdempotencyOptions, type IdempotencyPolicy, IdempotencyService } from './idempotency.service';
export { oncePerEvent, PartnerReceiptsRepository } from './partner-receipts.repository';
