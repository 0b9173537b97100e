import { Module } from '@nestjs/common';
import { NotificationsModule } from '../adapters/notifications/notifications.module';
import { AppointmentsModule } from '../appointments/appointments.module';
import { LabTestsModule } from '../lab-tests/lab-tests.module';
import { OrdersModule } from '../orders/orders.module';
import { PortalModule } from '../portal/portal.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { OrderRemindersRepository } from './order-reminders.repository';
import { OrderRemindersService } from './order-reminders.service';

/**
 * Patient reminders: the service the reminder activities call (activities/reminders.ts) when the
 * order workflow's reminder timers fire (workflows/order/reminders.ts).
 */
@Module({
  imports: [OrdersModule, AppointmentsModule, LabTestsModule, PortalModule, TenancyModule, NotificationsModule],
  providers: [OrderRemindersRepository, OrderRemindersService],
  exports: [OrderRemindersService],
})
export class RemindersModule {}
