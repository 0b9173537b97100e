import { Injectable, Module } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { MetricsRegistry } from '../../common/metrics/registry';
import { StrandedOrdersRepository } from '../../orders/stranded-orders.repository';

/** Every (kind, state) an unresolved stranded order can have: each is exported, 0 included, so alerts see the series. */
const OPEN_SERIES = (['closed', 'missing', 'stalled'] as const).flatMap((kind) => (['raised', 'healed'] as const).map((state) => ({ kind, state })));

/**
 * The management API's own gauge on its /metrics, read from Postgres at each scrape:
 * `labflow_stranded_orders{kind,state}`, the unresolved rows of stranded_orders. An alert on
 * `state="raised"` above 0 is an order a human has to look at. Served by the management API only,
 * so several API or worker replicas do not report the same rows.
 */
@Injectable()
export class StrandedOrdersGauge {
  constructor(metrics: MetricsRegistry, stranded: StrandedOrdersRepository) {
    new Gauge({
      name: 'labflow_stranded_orders',
      help: 'Orders whose workflow closed, vanished or stalled while they had not ended, not yet resolved: by kind (closed, missing, stalled) and state (healed: a new run was started; raised: needs a human).',
      labelNames: ['kind', 'state'] as const,
      registers: [metrics.registry],
      async collect() {
        const counts = await stranded.countOpen();
        for (const series of OPEN_SERIES) this.set(series, 0);
        for (const { kind, state, count } of counts) this.set({ kind, state }, count);
      },
    });
  }
}

@Module({
  providers: [StrandedOrdersRepository, StrandedOrdersGauge],
})
export class MetricsModule {}
