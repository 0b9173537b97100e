import { Module } from '@nestjs/common';
import { RequestLimiter } from './request-limiter';

/**
 * The HTTP apps' rate limits. The root modules register ApiRateLimitGuard or
 * ManagementRateLimitGuard as their first APP_GUARD (before the key guard), which needs this.
 */
@Module({
  providers: [RequestLimiter],
  exports: [RequestLimiter],
})
export class RateLimitsModule {}
