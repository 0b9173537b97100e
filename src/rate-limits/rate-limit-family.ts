import { SetMetadata } from '@nestjs/common';

/** The unauthenticated route families, each limited per client address with budgets of its own. */
export type AddressFamily = 'portal' | 'link' | 'partnerWebhooks';

export const RATE_LIMIT_FAMILY = 'labflow:rate-limit-family';

/**
 * Puts a controller's (or a route's) @Public routes under `family`'s per-address budgets: its
 * requests, and its refused attempts (401, 404: a guessed code, token or signature). Routes of
 * the controller that need a key are limited per key whatever this says. A @Public route without
 * a family (health, metrics, docs) is not limited.
 */
export const LimitedPerAddress = (family: AddressFamily) => SetMetadata(RATE_LIMIT_FAMILY, family);
