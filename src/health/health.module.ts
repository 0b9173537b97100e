import { Controller, Get, Inject, Injectable, Module } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TerminusModule,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import type { Client } from '@temporalio/client';
import type Redis from 'ioredis';
import { once } from 'node:events';
import { setTimeout } from 'node:timers/promises';
import { Public } from '../auth/principal';
import { REDIS, TEMPORAL_CLIENT } from '../core.tokens';

/** Redis and Temporal checks; Postgres uses terminus' own TypeORM indicator. */
@Injectable()
export class DependencyHealth {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
  ) {}

  async redisUp() {
    const check = this.indicators.check('redis');
    try {
      // Just after start-up the connection may still be opening: give it a moment.
      if (this.redis.status !== 'ready') await Promise.race([once(this.redis, 'ready'), setTimeout(1000)]);
      await this.redis.ping();
      return check.up();
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
  }

  async temporalUp() {
    const check = this.indicators.check('temporal');
    try {
      await this.temporal.connection.ensureConnected();
      const { serverVersion } = await this.temporal.workflowService.getSystemInfo({});
      return check.up({ namespace: this.temporal.options.namespace, serverVersion: serverVersion ?? 'unknown' });
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
  }
}

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly postgres: TypeOrmHealthIndicator,
    private readonly dependencies: DependencyHealth,
  ) {}

  @Get()
  @Public()
  @HealthCheck()
  check() {
    return this.health.check([
      () => this.postgres.pingCheck('postgres', { timeout: 2000 }),
      () => this.dependencies.redisUp(),
      () => this.dependencies.temporalUp(),
    ]);
  }
}

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [DependencyHealth],
})
export class HealthModule {}
