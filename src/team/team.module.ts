import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module';
import { OrdersModule } from '../orders/orders.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { UsersModule } from '../users/users.module';
import { TeamMetricsController } from './team-metrics.controller';
import { TeamMetricsService } from './team-metrics.service';
import { TeamController } from './team.controller';
import { TeamService } from './team.service';
import { SourcePrioritiesService } from './source-priorities.service';

/** The main API's view of the caller's own team. */
@Module({
  imports: [TenancyModule, UsersModule, OrdersModule, ConnectionsModule],
  controllers: [TeamController, TeamMetricsController],
  providers: [TeamService, TeamMetricsService, SourcePrioritiesService],
})
export class TeamModule {}
