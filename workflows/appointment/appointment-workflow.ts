import type { AppointmentCommand, AppointmentWorkflowInput, AppointmentWorkflowResult } from '../contract';
import { simulatedNextStatus, type SimulatedUntil } from './appointment-lifecycle';
import { AppointmentRun, type SimulatedStep } from './appointment-run';

/**
 * `order:<order_id>:appointment:<n>` of orders that run orderWorkflow (v1), kept registered for
 * them: one appointment (./appointment-run.ts) whose sandbox simulation stands in for the
 * provider, one step per delay (confirm, draw in progress, completed). Appointments of
 * orderWorkflowV2 run appointmentWorkflowV2, whose sandbox provider reports through its callbacks.
 */
export async function appointmentWorkflow(input: AppointmentWorkflowInput): Promise<AppointmentWorkflowResult> {
  return new SimulatedAppointment(input).install().run();
}

class SimulatedAppointment extends AppointmentRun {
  private simulation: { delayMs: number; until: SimulatedUntil } | null;

  constructor(input: AppointmentWorkflowInput) {
    super(input);
    this.simulation = input.simulation;
  }

  protected override simulate(command: Extract<AppointmentCommand, { type: 'simulate' }>): void {
    this.simulation = { delayMs: command.delayMs, until: command.until };
  }

  protected override simulatedStep(): SimulatedStep | null {
    const simulation = this.simulation;
    if (!simulation) return { status: null, delayMs: 0, changed: () => this.simulation !== simulation };
    return { status: simulatedNextStatus(this.status, simulation.until), delayMs: simulation.delayMs, changed: () => this.simulation !== simulation };
  }
}
