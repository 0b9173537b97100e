import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../common/idempotency';
import { EventsModule } from '../events/events.module';
import { LabTestsModule } from '../lab-tests/lab-tests.module';
import { OrdersModule } from '../orders/orders.module';
import { UsersModule } from '../users/users.module';
import { PhlebotomyAppointmentsController, ProviderCallbacksController, PscAppointmentsController } from './appointment-bookings.controller';
import { AppointmentBookingsService } from './appointment-bookings.service';
import { AppointmentLifecycleService } from './appointment-lifecycle.service';
import { AppointmentViews } from './appointment-views';
import { AppointmentsRepository } from './appointments.repository';
import { AppointmentAvailabilityController } from './appointment-availability.controller';
import { AppointmentAreasController } from './appointment-areas.controller';
import { AppointmentAreasService } from './appointment-areas.service';
import { APPOINTMENTS_CLOCK, AppointmentAvailabilityService, PHLEBOTOMY_PROVIDER, PSC_PROVIDER } from './appointment-availability.service';
import { SandboxPhlebotomyProvider } from './providers/sandbox-phlebotomy.provider';
import { SandboxPscProvider } from './providers/sandbox-psc.provider';
import { SandboxAppointmentPartner } from './sandbox-appointment-partner';

/**
 * Phlebotomy and walk-in (PSC) appointments: availability and booking keys, booking through the
 * order workflow, the activities' lifecycle service and the providers' callbacks (sandbox providers).
 */
@Module({
  imports: [OrdersModule, EventsModule, IdempotencyModule, LabTestsModule, UsersModule],
  controllers: [
    AppointmentAvailabilityController,
    AppointmentAreasController,
    PhlebotomyAppointmentsController,
    PscAppointmentsController,
    ProviderCallbacksController,
  ],
  providers: [
    SandboxPhlebotomyProvider,
    SandboxPscProvider,
    { provide: PHLEBOTOMY_PROVIDER, useExisting: SandboxPhlebotomyProvider },
    { provide: PSC_PROVIDER, useExisting: SandboxPscProvider },
    { provide: APPOINTMENTS_CLOCK, useValue: () => Date.now() },
    AppointmentAvailabilityService,
    AppointmentAreasService,
    AppointmentsRepository,
    AppointmentViews,
    AppointmentLifecycleService,
    AppointmentBookingsService,
    SandboxAppointmentPartner,
  ],
  exports: [AppointmentAvailabilityService, AppointmentLifecycleService, AppointmentBookingsService, SandboxAppointmentPartner],
})
export class AppointmentsModule {}
