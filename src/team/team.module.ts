import { Module } from '@nestjs/common';
import { OrdersModule } from '../orders/orders.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { UsersModule } from '../users/users.module';
import { TeamController } from './team.controller';
import { TeamService } from './team.service';

/** The main API's view of the caller's own team. */
@Module({
  imports: [TenancyModule, UsersModule, OrdersModule],
  controllers: [TeamController],
  providers: [TeamService],
})
export class TeamModule {}
