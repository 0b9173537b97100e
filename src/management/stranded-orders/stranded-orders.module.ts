import { Module } from '@nestjs/common';
import { StrandedOrdersRepository } from '../../orders/stranded-orders.repository';
import { TeamsModule } from '../teams/teams.module';
import { StrandedOrdersController } from './stranded-orders.controller';
import { StrandedOrdersService } from './stranded-orders.service';

/** The management listing of stranded orders (the reconciler writes them). */
@Module({
  imports: [TeamsModule],
  controllers: [StrandedOrdersController],
  providers: [StrandedOrdersRepository, StrandedOrdersService],
})
export class StrandedOrdersModule {}
