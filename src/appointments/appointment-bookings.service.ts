import { Inject, Injectable } from '@nestjs/common';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { createHash } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { badRequest, notFound, validationError } from '../common/errors';
import { fingerprint, type IdempotencyPolicy, IdempotencyService, oncePerEvent, PartnerReceiptsRepository } from '../common/idempotency';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { TEMPORAL_CLIENT } from '../core.tokens';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import type { OrderEntity } from '../orders/order.entities';
import { OrderWorkflows } from '../orders/order-workflows';
import { OrdersRepository } from '../orders/orders.repository';
import { OrderCommandsService } from '../orders/order-commands.service';
import { OrderQueriesService } from '../orders/order-queries.service';
import type { PostOrderResponse } from '../orders/order-views';
import {
  type AppointmentKind,
  appointmentProviderUpdate,
  type AppointmentSlot,
  type AppointmentUpdateResult,
  appointmentWorkflowId,
  bookAppointment,
  cancelAppointment,
  completeDraw,
  rescheduleAppointment,
} from '../../workflows/contract';
import { endedRefusal } from '../../workflows/order/order-lifecycle';
import { appointmentKindRefusal, BOOKING_KEY_EXPIRED, slotKindRefusal } from '../../workflows/appointment/appointment-lifecycle';
import { AppointmentLifecycleService } from './appointment-lifecycle.service';
import { AppointmentViews, type AppointmentView } from './appointment-views';
import { AppointmentsRepository } from './appointments.repository';
import { AppointmentAvailabilityService } from './appointment-availability.service';
import type { BookAppointmentDto, CancelAppointmentDto, ProviderCallbackDto, RequestAppointmentDto, RescheduleAppointmentDto } from './appointments.dto';
import { type CancellationReason, PSC_SCHEDULING_LABS } from './providers/appointment-provider';

/**
 * The appointment API: every change goes to the ORDER workflow as an update (its validator
 * refuses a stale booking key or a finished order before anything is written), which relays it
 * to the appointment's child workflow; reads come from Postgres.
 */
@Injectable()
export class AppointmentBookingsService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly orderQueries: OrderQueriesService,
    private readonly orderCommands: OrderCommandsService,
    private readonly workflows: OrderWorkflows,
    private readonly appointments: AppointmentsRepository,
    private readonly views: AppointmentViews,
    private readonly catalog: LabCatalogRepository,
    private readonly lifecycle: AppointmentLifecycleService,
    private readonly availability: AppointmentAvailabilityService,
    private readonly idempotency: IdempotencyService,
    private readonly receipts: PartnerReceiptsRepository,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
  ) {}

  /**
   * Books the slot a booking key vouches for. PSC: `x-idempotency-key` makes retries (also
   * concurrent ones) answer with the one appointment the first made, for 14 days.
   */
  async book(
    team: TeamPrincipal,
    orderId: string,
    kind: AppointmentKind,
    body: BookAppointmentDto,
    options: { idempotencyKey?: string; asyncConfirmation?: boolean } = {},
  ): Promise<AppointmentView> {
    const order = await this.requireOrder(team, orderId, kind);
    if (kind === 'psc') await this.requirePscScheduling(order);
    const slot = this.verifyBookingKey(team, body.booking_key, kind);
    const key = options.idempotencyKey;
    const requestHash = fingerprint({ orderId, body, asyncConfirmation: options.asyncConfirmation ?? false });
    const earlierId = await this.idempotency.earlierResult(team, key, { subjectId: order.id, requestHash }, this.idempotencyPolicy());
    const earlier = earlierId === null ? null : await this.appointments.byId(earlierId);
    if (earlier) return this.views.view(earlier);
    const result = await this.runUpdate(order, (handle) =>
      handle.executeUpdate(bookAppointment, {
        args: [
          { booking: { mode: 'book', slot }, kind, appointmentNotes: body.appointment_notes ?? null, asyncConfirmation: options.asyncConfirmation ?? false },
        ],
        // Temporal runs an update once per id: concurrent retries with one key book once.
        ...(key !== undefined ? { updateId: `book:${createHash('sha256').update(`${team.teamId}:${team.environment}:${key}`).digest('hex')}` } : {}),
      }),
    );
    if (key !== undefined) {
      await this.idempotency.rememberResult(team, key, { subjectId: order.id, requestHash, resultId: result.appointmentId }, this.idempotencyPolicy());
    }
    return this.view(team, order, result.appointmentId);
  }

  /** PSC booking's keys: `x-idempotency-key`, kept APPOINTMENT_IDEMPOTENCY_KEY_TTL. */
  private idempotencyPolicy(): IdempotencyPolicy {
    return { header: 'x-idempotency-key', ttlMs: this.config.appointments.idempotencyKeyTtlMs };
  }

  /** Provider-managed scheduling of an at-home draw: pending until the provider picks a time. */
  async request(team: TeamPrincipal, orderId: string, body: RequestAppointmentDto): Promise<AppointmentView> {
    const order = await this.requireOrder(team, orderId, 'phlebotomy');
    const provider = this.lifecycle.providerOf('phlebotomy');
    if (body.provider !== provider.publicName) {
      throw validationError(['body', 'provider'], `Provider ${body.provider} does not serve at-home draws here; ${provider.publicName} does.`, body.provider);
    }
    const result = await this.runUpdate(order, (handle) =>
      handle.executeUpdate(bookAppointment, {
        args: [{ booking: { mode: 'request', address: body.address }, kind: 'phlebotomy', appointmentNotes: body.appointment_notes ?? null }],
      }),
    );
    return this.view(team, order, result.appointmentId);
  }

  async reschedule(
    team: TeamPrincipal,
    orderId: string,
    kind: AppointmentKind,
    body: RescheduleAppointmentDto,
    options: { asyncConfirmation?: boolean } = {},
  ): Promise<AppointmentView> {
    const order = await this.requireOrder(team, orderId, kind);
    if (kind === 'psc') await this.requirePscScheduling(order);
    const slot = this.verifyBookingKey(team, body.booking_key, kind);
    const result = await this.runUpdate(order, (handle) =>
      handle.executeUpdate(rescheduleAppointment, {
        args: [{ slot, appointmentNotes: body.appointment_notes ?? null, asyncConfirmation: options.asyncConfirmation ?? false }],
      }),
    );
    return this.view(team, order, result.appointmentId);
  }

  async cancel(team: TeamPrincipal, orderId: string, kind: AppointmentKind, body: CancelAppointmentDto): Promise<AppointmentView> {
    const order = await this.requireOrder(team, orderId, kind);
    const reasons = this.cancellationReasons(kind);
    if (!reasons.some((reason) => reason.id === body.cancellation_reason_id)) {
      throw validationError(
        ['body', 'cancellation_reason_id'],
        `Unknown cancellation reason; one of: ${reasons.map((reason) => reason.id).join(', ')}.`,
        body.cancellation_reason_id,
      );
    }
    const result = await this.runUpdate(order, (handle) =>
      handle.executeUpdate(cancelAppointment, { args: [{ kind, cancellationReasonId: body.cancellation_reason_id, notes: body.notes ?? null }] }),
    );
    return this.view(team, order, result.appointmentId);
  }

  /** `GET /v3/order/{id}/{phlebotomy|psc}/appointment`: the order's latest appointment. */
  async get(team: TeamPrincipal, orderId: string, kind: AppointmentKind): Promise<AppointmentView> {
    const order = await this.requireOrder(team, orderId, kind);
    const row = await this.appointments.latestOf(order.id);
    if (!row) throw notFound('Appointment');
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'read', [order.id]);
    return this.views.view(row);
  }

  cancellationReasons(kind: AppointmentKind): CancellationReason[] {
    return this.lifecycle.providerOf(kind).cancellationReasons();
  }

  /** `PATCH /v3/order/{id}/draw_completed`: the sample was drawn (at-home phlebotomy). */
  /**
   * `PATCH /v3/order/{id}/draw_completed`: Junction's route for on-site collection orders (the
   * order workflow records the draw); labflow also takes it for an at-home order's appointment
   * (its phlebotomist's draw).
   */
  async drawCompleted(team: TeamPrincipal, orderId: string): Promise<PostOrderResponse> {
    const order = await this.requireOrder(team, orderId, null);
    if (order.flow === 'on_site_collection') return this.orderCommands.reportOnSiteDraw(team, order);
    requireKind(order, 'phlebotomy');
    await this.runUpdate(order, (handle) => handle.executeUpdate(completeDraw));
    return { order: await this.orderQueries.get(team, order.id), status: 'success', message: 'Draw completed.' };
  }

  /** A provider's report (confirmation, draw in progress or done, its own cancellation). */
  async providerCallback(providerSlug: string, body: ProviderCallbackDto): Promise<{ status: 'accepted' | 'ignored'; appointment_id: string }> {
    if (!this.lifecycle.providerBySlug(providerSlug)) throw notFound('Appointment provider integration');
    const row = await this.appointments.byProviderId(providerSlug, body.provider_id);
    if (!row) throw notFound('Appointment with this provider_id');
    // A resent callback (same event_id) gets the first one's answer and signals nothing.
    return oncePerEvent(this.receipts, { kind: 'appointments', partner: providerSlug, eventId: body.event_id }, async () => {
      try {
        await this.temporal.workflow.getHandle(appointmentWorkflowId(row.order_id, row.n)).signal(appointmentProviderUpdate, {
          status: body.status,
          startAt: body.start_at ?? null,
          endAt: body.end_at ?? null,
          reason: body.reason ?? null,
          // The run takes each event id once: a resend after a crash before the receipt committed signals again.
          ...(body.event_id ? { eventId: body.event_id } : {}),
        });
      } catch (error) {
        // The appointment's workflow has finished: nothing left to change.
        if (error instanceof WorkflowNotFoundError) return { status: 'ignored' as const, appointment_id: row.id };
        throw error;
      }
      return { status: 'accepted' as const, appointment_id: row.id };
    });
  }

  // -------------------------------------------------------------------------------------------

  private async runUpdate(
    order: OrderEntity,
    call: (handle: ReturnType<OrderWorkflows['handle']>) => Promise<AppointmentUpdateResult>,
  ): Promise<AppointmentUpdateResult> {
    // A finished order's workflow is closed: say why instead of "no longer active".
    const refusal = endedRefusal(order.flow, order.lowLevelStatus);
    if (refusal) throw badRequest(refusal);
    await this.workflows.ensureStarted(order);
    return this.workflows.runUpdate(order.id, () => call(this.workflows.handle(order.id)));
  }

  /** The team's order (404 otherwise), of an appointment `kind` when one is named (400 otherwise). */
  private async requireOrder(team: TeamPrincipal, orderId: string, kind: AppointmentKind | null): Promise<OrderEntity> {
    const order = await this.orders.findScoped(team, orderId);
    if (!order) throw notFound('Order');
    if (kind) requireKind(order, kind);
    return order;
  }

  /** 400 for booking a walk-in order of a lab whose service centers labflow does not schedule. */
  private async requirePscScheduling(order: OrderEntity): Promise<void> {
    const [lab] = await this.catalog.labsByIds([order.labId]);
    if (lab && (PSC_SCHEDULING_LABS as readonly string[]).includes(lab.slug)) return;
    throw badRequest(
      `Service-center appointments are scheduled for ${PSC_SCHEDULING_LABS.join(', ')} orders only; order ${order.id} is for lab ${lab?.slug ?? order.labId}: the patient walks in without an appointment.`,
    );
  }

  /** The slot a booking key vouches for; 400 {detail} when it is not ours, not this team's, or expired. */
  private verifyBookingKey(team: TeamPrincipal, key: string, kind: AppointmentKind): AppointmentSlot {
    const checked = this.availability.bookingKeys.verifyBookingKey(key);
    if (checked === 'expired') throw badRequest(BOOKING_KEY_EXPIRED);
    if (checked === 'invalid' || checked.team_id !== team.teamId) throw badRequest('The booking_key is not valid.');
    const refusal = slotKindRefusal(checked.kind, kind);
    if (refusal) throw badRequest(refusal);
    return { kind: checked.kind, provider: checked.provider, site: checked.site, start: checked.start, end: checked.end, expires_at: checked.expires_at };
  }

  private async view(team: TeamPrincipal, order: OrderEntity, appointmentId: string): Promise<AppointmentView> {
    const row = await this.appointments.byId(appointmentId);
    if (!row) throw notFound('Appointment');
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'write', [order.id]);
    return this.views.view(row);
  }
}

/** 400 unless the order takes appointments of `kind`. */
function requireKind(order: OrderEntity, kind: AppointmentKind): void {
  const refusal = appointmentKindRefusal(order.id, order.flow, kind);
  if (refusal) throw badRequest(refusal);
}
