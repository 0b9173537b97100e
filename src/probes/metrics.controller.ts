import { Controller, type DynamicModule, Get, Header, Headers, Inject, Module } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Public } from '../auth/principal';
import { unauthorized } from '../common/errors';
import { MetricsRegistry, scrapeAllowed } from '../common/metrics/registry';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';

/**
 * `GET /metrics` for Prometheus on the app's own port. No key of the app's kind (a scraper holds
 * no team or management key) and nothing in it names a team, a user or an order; where the port
 * is reachable from outside, METRICS_TOKEN makes it ask for a bearer token.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsRegistry,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  @Get()
  @Public()
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  scrape(@Headers('authorization') authorization: string | undefined): Promise<string> {
    if (!scrapeAllowed(this.config.metrics.token, authorization)) throw unauthorized('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
    return this.metrics.text();
  }
}

/** The /metrics endpoint of an HTTP app, present only with METRICS_ENABLED. */
@Module({})
export class MetricsEndpointModule {
  static forRoot(config: LabflowConfig): DynamicModule {
    return { module: MetricsEndpointModule, controllers: config.metrics.enabled ? [MetricsController] : [] };
  }
}
