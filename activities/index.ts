import type {
  AppointmentActivities,
  ConnectionActivities,
  EventActivities,
  FhirExportActivities,
  LinkBulkOpActivities,
  OrderActivities,
  ReminderActivities,
  SandboxPartnerActivities,
  UserActivities,
} from '../workflows/contract';
import { type AppointmentLifecycle, createAppointmentActivities } from './appointments';
import { type ConnectionSync, createConnectionActivities } from './connections';
import { createEventActivities, type EventEmitter } from './events';
import { createFhirExportActivities, type FhirExportWriter } from './fhir-exports';
import { createLinkBulkOpActivities, type LinkBulkOpRunner } from './link-bulk-ops';
import { createOrderActivities, type OrderLifecycle } from './orders';
import { createReminderActivities, type ReminderSender } from './reminders';
import { createSandboxPartnerActivities, type PartnerWebhookSender, type SandboxPartnerStandIns, type SandboxProviderStandIn } from './sandbox-partners';
import { createUserActivities, type UserDeletionStore } from './users';

export interface ActivityDependencies {
  users: UserDeletionStore;
  events: EventEmitter;
  orders: OrderLifecycle;
  appointments: AppointmentLifecycle;
  reminders: ReminderSender;
  connections: ConnectionSync;
  linkBulkOps: LinkBulkOpRunner;
  sandboxPartners: SandboxPartnerStandIns;
  fhirExports: FhirExportWriter;
  sandboxProvider: SandboxProviderStandIn;
  /** How the sandbox partners call labflow's partner webhooks (signed HTTP). */
  partnerWebhooks: PartnerWebhookSender;
}

/** Every activity the worker registers, built from the services it calls. */
export function createActivities(
  deps: ActivityDependencies,
): UserActivities &
  EventActivities &
  OrderActivities &
  AppointmentActivities &
  ReminderActivities &
  ConnectionActivities &
  LinkBulkOpActivities &
  SandboxPartnerActivities &
  FhirExportActivities {
  return {
    ...createUserActivities(deps.users),
    ...createEventActivities(deps.events),
    ...createOrderActivities(deps.orders),
    ...createAppointmentActivities(deps.appointments),
    ...createReminderActivities(deps.reminders),
    ...createConnectionActivities(deps.connections),
    ...createLinkBulkOpActivities(deps.linkBulkOps),
    ...createSandboxPartnerActivities(deps.sandboxPartners, deps.sandboxProvider, deps.partnerWebhooks),
    ...createFhirExportActivities(deps.fhirExports),
  };
}

// The lab report worker registers these alone, on its own task queue (src/temporal-worker.ts).
export { createLabReportActivities, type LabReportProcessing } from './lab-reports';
