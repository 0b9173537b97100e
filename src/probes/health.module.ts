import { Controller, type DynamicModule, Get, Module, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags, ApiResponse } from '@nestjs/swagger';
import { TerminusModule } from '@nestjs/terminus';
import { Public } from '../auth/principal';
import { type Dependency, DependencyHealth, describeFailures, Readiness, READINESS_NEEDS, type ReadinessReport } from './readiness';
import { ZodResponse } from 'nestjs-zod';
import { LivenessResponse, NotReadyResponse, ReadinessResponse } from './health-responses.dto';

/**
 * Liveness and readiness probes, public (no key), with nothing in them but dependency states.
 *
 * - `GET /health/live`: 200 while the process runs and answers HTTP; never asks a dependency.
 * - `GET /health/ready`: 200 `{status: 'ok', checks}` when every dependency this process needs
 *   answers, else 503 `{detail, status: 'error', checks}`. `GET /health` is the same (older probes).
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  @Get('live')
  @Public()
  @ZodResponse({ status: 200, type: LivenessResponse })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @ZodResponse({ status: 200, type: ReadinessResponse })
  @ApiResponse({ status: 503, type: NotReadyResponse.Output })
  ready(): Promise<ReadinessReport> {
    return this.readyOr503();
  }

  @Get()
  @Public()
  @ZodResponse({ status: 200, type: ReadinessResponse })
  @ApiResponse({ status: 503, type: NotReadyResponse.Output })
  check(): Promise<ReadinessReport> {
    return this.readyOr503();
  }

  private async readyOr503(): Promise<ReadinessReport> {
    const report = await this.readiness.report();
    // The exception filter answers {detail} with the rest of this object beside it.
    if (report.status !== 'ok') throw new ServiceUnavailableException({ message: describeFailures(report), ...report });
    return report;
  }
}

export interface HealthOptions {
  /** What this process cannot serve without (the API: all three; the management API: Postgres). */
  needs: Dependency[];
  /** Serve the probes over the app's HTTP (default); the worker serves them on its own port. */
  http?: boolean;
}

@Module({})
export class HealthModule {
  static forRoot(options: HealthOptions): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: options.http === false ? [] : [HealthController],
      providers: [DependencyHealth, Readiness, { provide: READINESS_NEEDS, useValue: options.needs }],
      exports: [Readiness],
    };
  }
}
