import { Controller, Get, Header, Injectable, Module } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Gauge, Registry } from 'prom-client';
import { Public } from '../../auth/principal';
import { StrandedOrdersRepository } from '../../orders/stranded-orders.repository';

/** Every (kind, state) an unresolved stranded order can have: each is exported, 0 included, so alerts see the series. */
const OPEN_SERIES = (['closed', 'missing', 'stalled'] as const).flatMap((kind) => (['raised', 'healed'] as const).map((state) => ({ kind, state })));

/**
 * labflow's Prometheus metrics, in a registry of their own (not prom-client's global one, so two
 * apps in one process, as in tests, do not collide). For now one gauge, read from Postgres at
 * each scrape: `labflow_stranded_orders{kind,state}`, the unresolved rows of stranded_orders.
 * An alert on `state="raised"` above 0 is an order a human has to look at.
 */
@Injectable()
export class LabflowMetrics {
  readonly registry = new Registry();

  constructor(stranded: StrandedOrdersRepository) {
    new Gauge({
      name: 'labflow_stranded_orders',
      help: 'Orders whose workflow closed, vanished or stalled while they had not ended, not yet resolved: by kind (closed, missing, stalled) and state (healed: a new run was started; raised: needs a human).',
      labelNames: ['kind', 'state'] as const,
      registers: [this.registry],
      async collect() {
        const counts = await stranded.countOpen();
        for (const series of OPEN_SERIES) this.set(series, 0);
        for (const { kind, state, count } of counts) this.set({ kind, state }, count);
      },
    });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** `GET /metrics` on the management port, for Prometheus; public like /health (counts only, no ids). */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: LabflowMetrics) {}

  @Get()
  @Public()
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return this.metrics.text();
  }
}

@Module({
  controllers: [MetricsController],
  providers: [StrandedOrdersRepository, LabflowMetrics],
})
export class MetricsModule {}
