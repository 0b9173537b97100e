import { createHash } from 'node:crypto';
import type { SandboxCallback, SandboxCallbacks } from '../../adapters/sandbox-callbacks';
import type { LabflowConfig } from '../../config/config';
import type { AppointmentBookingProvider, CancellationReason, ProviderBooking, ProviderBookingRequest, ProviderSlotRef } from './appointment-provider';

/** Appointment notes containing this make the sandbox provider cancel the appointment later. */
export const SANDBOX_PROVIDER_CANCEL_MARKER = '[sandbox:provider_cancel]';

/** The provider callback endpoint's path for a provider slug. */
export const providerCallbackPath = (slug: string) => `/v3/webhooks/appointments/${slug}`;

/** What providers POST to the callback endpoint (src/appointments/provider-callbacks.controller.ts). */
export interface ProviderCallbackBody {
  provider_id: string;
  status: 'confirmed' | 'in_progress' | 'completed' | 'cancelled';
  start_at?: string | null;
  end_at?: string | null;
  reason?: string | null;
}

/** Junction's cancellation reasons, as the sandbox providers offer them. */
export const SANDBOX_CANCELLATION_REASONS: CancellationReason[] = [
  { id: 'patient_unavailable', name: 'Patient is no longer available at this time', is_refundable: true },
  { id: 'patient_request', name: 'Patient asked to cancel', is_refundable: true },
  { id: 'scheduled_in_error', name: 'Scheduled in error', is_refundable: true },
  { id: 'address_issue', name: 'Address could not be reached', is_refundable: false },
  { id: 'other', name: 'Other', is_refundable: false },
];

/** A stable provider id: booking the same appointment twice gives the same id (idempotent). */
export function sandboxProviderId(prefix: string, appointmentId: string): string {
  return `${prefix}-${createHash('sha256').update(appointmentId).digest('hex').slice(0, 16)}`;
}

/**
 * What a sandbox provider later reports about a booking, as delayed callbacks: the confirmation of
 * a pending booking (async confirmation, or a requested appointment with the time the provider
 * picked), a provider-side cancellation when the notes ask for one, and for production orders the
 * draw itself (in progress at the start, completed at the end).
 */
export class SandboxProviderReports {
  constructor(
    private readonly callbacks: SandboxCallbacks,
    private readonly slug: string,
    private readonly stepDelayMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async afterBooking(
    request: Pick<ProviderBookingRequest, 'appointmentId' | 'notes' | 'environment'> & {
      providerId: string;
      status: 'confirmed' | 'pending';
      slot: ProviderSlotRef;
    },
  ): Promise<void> {
    const key = `${this.slug}:${request.appointmentId}:${Date.parse(request.slot.start)}`;
    const reports: SandboxCallback[] = [];
    const at = (status: ProviderCallbackBody['status'], delayMs: number, extra: Partial<ProviderCallbackBody> = {}): SandboxCallback => ({
      id: `${key}:${status}`,
      path: providerCallbackPath(this.slug),
      body: { provider_id: request.providerId, status, start_at: request.slot.start, end_at: request.slot.end, ...extra } satisfies ProviderCallbackBody,
      delayMs,
    });
    if (request.status === 'pending') reports.push(at('confirmed', this.stepDelayMs));
    if (request.notes?.includes(SANDBOX_PROVIDER_CANCEL_MARKER)) {
      reports.push(at('cancelled', 2 * this.stepDelayMs, { reason: 'The provider cancelled the appointment (sandbox).' }));
    } else if (request.environment === 'production') {
      const now = this.now();
      const start = Math.max(Date.parse(request.slot.start) - now, 2 * this.stepDelayMs);
      const end = Math.max(Date.parse(request.slot.end) - now, start + this.stepDelayMs);
      reports.push(at('in_progress', start), at('completed', end));
    }
    await this.callbacks.schedule(reports);
  }
}

/**
 * What both sandbox providers share: the reports they send back later, rescheduling (confirmed
 * at once, or pending until a confirmation callback), cancelling (nothing to undo in a sandbox)
 * and the cancellation reasons.
 */
export abstract class SandboxBookingProvider implements AppointmentBookingProvider {
  abstract readonly publicName: string;
  protected readonly reports: SandboxProviderReports;

  protected constructor(
    readonly slug: string,
    callbacks: SandboxCallbacks,
    config: LabflowConfig,
  ) {
    this.reports = new SandboxProviderReports(callbacks, slug, config.appointments.providerStepDelayMs);
  }

  abstract capacity(site: string): number;
  abstract book(request: ProviderBookingRequest): Promise<ProviderBooking>;

  async reschedule(request: Parameters<AppointmentBookingProvider['reschedule']>[0]): Promise<{ status: 'confirmed' | 'pending' }> {
    const status = request.asyncConfirmation ? 'pending' : 'confirmed';
    await this.reports.afterBooking({ ...request, status });
    return { status };
  }

  /** The latest cancellations asked of this provider (at most 100), as a real provider would receive them. */
  readonly cancellations: Array<Parameters<AppointmentBookingProvider['cancel']>[0]> = [];

  /** Nothing to undo in a sandbox; the request is kept as a provider would log it. */
  async cancel(request: Parameters<AppointmentBookingProvider['cancel']>[0]): Promise<void> {
    this.cancellations.push(request);
    if (this.cancellations.length > 100) this.cancellations.shift();
  }

  cancellationReasons(): CancellationReason[] {
    return SANDBOX_CANCELLATION_REASONS;
  }
}
