import { type DynamicModule, Module } from '@nestjs/common';
import type { LabflowConfig } from './config/config';
import { AppointmentsModule } from './appointments/appointments.module';
import { ConnectionsModule } from './connections/connections.module';
import { CoreModule } from './core.module';
import { EventsModule } from './events/events.module';
import { FhirModule } from './fhir/fhir.module';
import { HealthModule } from './probes/health.module';
import { LabReportsModule } from './lab-reports/lab-reports.module';
import { OrdersModule } from './orders/orders.module';
import { RemindersModule } from './reminders/reminders.module';
import { UsersModule } from './users/users.module';
import { workerNeeds } from './worker-observability';

/** The worker process's root module: the services activities call, without any HTTP layer. */
@Module({})
export class WorkerModule {
  static forRoot(config: LabflowConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        CoreModule.forRoot(config),
        // Probes served on WORKER_HEALTH_PORT (src/worker-observability.ts), not by an HTTP app.
        HealthModule.forRoot({ needs: workerNeeds(config.workerRoles), http: false }),
        UsersModule,
        EventsModule,
        OrdersModule,
        AppointmentsModule,
        LabReportsModule,
        RemindersModule,
        ConnectionsModule,
        FhirModule,
      ],
    };
  }
}
