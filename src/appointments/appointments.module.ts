import { Module } from '@nestjs/common';
import { AppointmentsController } from './appointments.controller';
import { APPOINTMENTS_CLOCK, AppointmentsService, PHLEBOTOMY_PROVIDER, PSC_PROVIDER } from './appointments.service';
import { SandboxPhlebotomyProvider } from './providers/sandbox-phlebotomy.provider';
import { SandboxPscProvider } from './providers/sandbox-psc.provider';

/** Phlebotomy and walk-in (PSC) appointments: availability and booking keys (sandbox providers). */
@Module({
  controllers: [AppointmentsController],
  providers: [
    SandboxPhlebotomyProvider,
    SandboxPscProvider,
    { provide: PHLEBOTOMY_PROVIDER, useExisting: SandboxPhlebotomyProvider },
    { provide: PSC_PROVIDER, useExisting: SandboxPscProvider },
    { provide: APPOINTMENTS_CLOCK, useValue: () => Date.now() },
    AppointmentsService,
  ],
  exports: [AppointmentsService],
})
export class AppointmentsModule {}
