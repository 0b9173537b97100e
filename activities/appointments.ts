import {
  type AppointmentActivities,
  type AppointmentRecord,
  type ChangeAppointmentInput,
  type CreateAppointmentInput,
  ORDER_GONE,
  SLOT_TAKEN,
} from '../workflows/contract';
import { nonRetryableByName } from './non-retryable';

/** What the appointment activities need from src/ (AppointmentLifecycleService fits). */
export interface AppointmentLifecycle {
  create(input: CreateAppointmentInput): Promise<AppointmentRecord>;
  change(input: ChangeAppointmentInput): Promise<AppointmentRecord>;
}

/** Errors no retry can fix, by class name: the workflow reports them as refusals. */
const translated = nonRetryableByName({
  SlotTakenError: SLOT_TAKEN,
  OrderGoneError: ORDER_GONE,
  NoCoverageError: 'NoCoverage',
});

/** Thin activities over the appointment lifecycle service (idempotent per appointment and change). */
export function createAppointmentActivities(lifecycle: AppointmentLifecycle): AppointmentActivities {
  return {
    createAppointment: (input) => translated(() => lifecycle.create(input)),
    changeAppointment: (input) => translated(() => lifecycle.change(input)),
  };
}
