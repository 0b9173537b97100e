import type { AppointmentWorkflowInput, AppointmentWorkflowResult } from '../contract';
import { AppointmentRun } from './appointment-run';

/**
 * `order:<order_id>:appointment:<n>` of orders that run orderWorkflowV2: one appointment
 * (./appointment-run.ts), the same code for sandbox and production. What the provider does
 * (confirm, draw, cancel on its side) arrives through its callbacks
 * (`POST /v3/webhooks/appointments/<provider>`), the sandbox provider's included.
 */
export async function appointmentWorkflowV2(input: AppointmentWorkflowInput): Promise<AppointmentWorkflowResult> {
  return new AppointmentRun(input).install().run();
}
