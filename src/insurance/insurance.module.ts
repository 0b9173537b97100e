import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { InsuranceController } from './insurance.controller';
import { InsuranceRepository, PayorRegistry } from './insurance.repository';
import { InsuranceService } from './insurance.service';
import { PayorsController } from './payors.controller';
import { PayorsService } from './payors.service';

/** Health insurance records of users (spec §Insurance, §4.1); PHI encrypted at rest. */
@Module({
  imports: [UsersModule],
  controllers: [InsuranceController, PayorsController],
  providers: [InsuranceRepository, PayorRegistry, InsuranceService, PayorsService],
  exports: [InsuranceService],
})
export class InsuranceModule {}
