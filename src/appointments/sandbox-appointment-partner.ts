import { Injectable } from '@nestjs/common';
import type { SandboxAppointmentSeen, SandboxProviderMove, SandboxProviderStandIn } from '../../activities/sandbox-partners';
import { ApiError } from '../common/errors';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { OrderWorkflows } from '../orders/order-workflows';
import { OrdersRepository } from '../orders/orders.repository';
import { type AppointmentStatus, bookAppointment, type SandboxAppointmentUntil, type SandboxReportAnswer } from '../../workflows/contract';
import { appointmentKindOf } from '../../workflows/appointment/appointment-lifecycle';
import { isAppointmentFlow } from '../../workflows/order/order-statuses';
import { AppointmentLifecycleService, SlotTakenError } from './appointment-lifecycle.service';
import { AppointmentsRepository } from './appointments.repository';
import { PSC_SCHEDULING_LABS } from './providers/appointment-provider';
import { type ProviderCallbackBody, providerCallbackPath } from './providers/sandbox-booking';

/** How long a provider step's activity waits for the appointment to take the report. */
const STATUS_WAIT_MS = 5000;
/** How long the booking key the sandbox patient books with would be good for. */
const SLOT_HOLD_MS = 60 * 60 * 1000;

/** The provider's next report from each status, heading for a completed visit or draw. */
const PROVIDER_NEXT: Partial<Record<AppointmentStatus, ProviderCallbackBody['status']>> = {
  pending: 'confirmed',
  reserved: 'confirmed',
  confirmed: 'in_progress',
  in_progress: 'completed',
};

/**
 * The sandbox appointment provider's side of `POST /v3/order/{id}/test` (the
 * sandboxPartnersWorkflow's `sandboxProviderStep`): it reports its appointments' progress
 * (confirmed, in progress, completed) through its callback, `POST /v3/webhooks/appointments/
 * <provider>`, signed and over HTTP like a real provider's (the activity sends the call made here).
 * An order without an open appointment first gets one the way a patient books it: an early free
 * slot, through the order's bookAppointment update, which the booking route sends too. A walk-in
 * order of a lab whose service centers labflow does not schedule has no appointment: the patient
 * walks in and the lab reports.
 */
@Injectable()
export class SandboxAppointmentPartner implements SandboxProviderStandIn {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly appointments: AppointmentsRepository,
    private readonly lifecycle: AppointmentLifecycleService,
    private readonly catalog: LabCatalogRepository,
    private readonly workflows: OrderWorkflows,
  ) {}

  async nextMove(orderId: string, until: SandboxAppointmentUntil): Promise<SandboxProviderMove> {
    const order = await this.orders.findById(orderId);
    if (!order || !isAppointmentFlow(order.flow)) return { kind: 'none', appointment: null, walksIn: false };
    const latest = await this.appointments.latestOf(orderId);
    if (!latest || latest.status === 'cancelled') {
      if (order.flow === 'walk_in_test' && !(await this.schedulesServiceCenters(order.labId))) return { kind: 'none', appointment: null, walksIn: true };
      return { kind: 'book' };
    }
    const next = PROVIDER_NEXT[latest.status];
    if (!next || (until === 'confirmed' && latest.status === 'confirmed')) return { kind: 'none', appointment: latest.status, walksIn: false };
    const body: ProviderCallbackBody = {
      provider_id: latest.provider_id,
      status: next,
      start_at: latest.start_at ? new Date(latest.start_at).toISOString() : null,
      end_at: latest.end_at ? new Date(latest.end_at).toISOString() : null,
    };
    return {
      kind: 'report',
      call: { path: providerCallbackPath(latest.provider_slug), body },
      appointment: { appointmentId: latest.id, status: latest.status },
    };
  }

  async book(orderId: string): Promise<SandboxReportAnswer> {
    const order = await this.orders.findById(orderId);
    if (!order || !isAppointmentFlow(order.flow)) return 'refused';
    const kind = appointmentKindOf(order.flow);
    try {
      const { provider, site, start, end } = await this.lifecycle.earlyFreeSlotOf(orderId, kind);
      const slot = { kind, provider, site, start, end, expires_at: new Date(Date.now() + SLOT_HOLD_MS).toISOString() };
      await this.workflows.runUpdate(orderId, () =>
        this.workflows.handle(orderId).executeUpdate(bookAppointment, { args: [{ booking: { mode: 'book', slot }, kind, appointmentNotes: null }] }),
      );
      return 'accepted';
    } catch (error) {
      // Refused (the slot was taken meanwhile, the order moved on): the partners try again later.
      if (error instanceof ApiError && error.getStatus() < 500) return 'refused';
      if (error instanceof SlotTakenError) return 'refused';
      throw error;
    }
  }

  async appointmentAfter(orderId: string, from: SandboxAppointmentSeen | null): Promise<AppointmentStatus | null> {
    const deadline = Date.now() + STATUS_WAIT_MS;
    for (;;) {
      const latest = await this.appointments.latestOf(orderId);
      const status = latest?.status ?? null;
      if (!from || !latest || latest.id !== from.appointmentId || latest.status !== from.status || Date.now() >= deadline) return status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async schedulesServiceCenters(labId: number): Promise<boolean> {
    const [lab] = await this.catalog.labsByIds([labId]);
    return !!lab && (PSC_SCHEDULING_LABS as readonly string[]).includes(lab.slug);
  }
}
