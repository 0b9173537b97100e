import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { badRequest, notFound, validationError } from '../common/errors';
import { EventResendService } from '../events/resend.service';
import { activateByChanged, cancelOrder, recordOnSiteDraw, registerKit, simulate } from '../../workflows/contract';
import { collectionMethodOf, eventStatus, type OrderLowLevelStatus } from '../../workflows/order/order-statuses';
import {
  ACTIVATE_BY_CHANGEABLE,
  cancelRefusal,
  endedRefusal,
  onSiteDrawRefusal,
  parseFinalStatus,
  registrationRefusal,
  simulationCanReach,
} from '../../workflows/order/order-lifecycle';
import { toPhysician } from './new-order';
import type { OrderEntity } from './order.entities';
import type { PendingRegistration } from './order-transitions.service';
import { OrderQueriesService } from './order-queries.service';
import type { PostOrderResponse } from './order-views';
import { OrderWorkflows } from './order-workflows';
import { PhysicianRule } from './physician-rule';
import type { PatchOrderDto, RegisterTestkitDto, ResendEventsDto, SimulateBody, SimulateQuery } from './orders.dto';
import { OrdersRepository } from './orders.repository';

/**
 * The order API's commands on existing orders: kit registration, cancellation, activate_by,
 * sandbox simulation, event resends. Every change goes through the order's workflow; the answer
 * is the order as read afterwards.
 */
@Injectable()
export class OrderCommandsService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly queries: OrderQueriesService,
    private readonly workflows: OrderWorkflows,
    private readonly physicianRule: PhysicianRule,
    private readonly resend: EventResendService,
    private readonly cipher: PhiCipher,
  ) {}

  /** `POST /v3/order/testkit/register`: the kit's patient, applied by the workflow's transition. */
  async register(team: TeamPrincipal, body: RegisterTestkitDto): Promise<PostOrderResponse> {
    const order = await this.orders.findBySampleId(team, body.sample_id);
    if (!order) throw notFound('Test kit with this sample_id');
    if (body.user_id && body.user_id !== order.userId) throw badRequest('This kit was ordered for another user.');
    const refusal = registrationRefusal(order.flow, order.lowLevelStatus, order.registeredAt !== null);
    if (refusal) throw badRequest(refusal);
    await this.physicianRule.checkOrder(order, body.physician, 'registration');
    const registration: PendingRegistration = {
      id: randomUUID(),
      patient_details: body.patient_details,
      patient_address: body.patient_address,
      physician: body.physician ? toPhysician(body.physician) : null,
      consents: body.consents ?? null,
      health_insurance: body.health_insurance ?? null,
      physician_signature: body.physician?.signature_image ?? null,
    };
    await this.orders.setPendingRegistration(order.id, this.cipher.encryptJson(registration));
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'write', [order.id]);
    await this.workflows.ensureStarted(order);
    await this.workflows.runUpdate(order.id, () => this.workflows.handle(order.id).executeUpdate(registerKit, { args: [{ registrationId: registration.id }] }));
    return this.respond(team, order.id, 'Test kit registered.');
  }

  /** Re-emits the latest order event of each order matched by ids and/or creation window. */
  resendEvents(team: TeamPrincipal, body: ResendEventsDto): Promise<{ order_ids: string[] }> {
    return this.resend.resendLatestOrderEvents(team, {
      orderIds: body.order_ids,
      startAt: body.start_at ? new Date(body.start_at) : undefined,
      endAt: body.end_at ? new Date(body.end_at) : undefined,
    });
  }

  /** `POST /v3/order/{id}/cancel`: the workflow's cancelOrder update decides. */
  async cancel(team: TeamPrincipal, orderId: string): Promise<PostOrderResponse> {
    const order = await this.queries.requireOrder(team, orderId);
    const refusal = cancelRefusal(order.flow, order.lowLevelStatus);
    if (refusal) throw badRequest(refusal);
    await this.workflows.ensureStarted(order);
    await this.workflows.runUpdate(order.id, () => this.workflows.handle(order.id).executeUpdate(cancelOrder));
    return this.respond(team, order.id, 'Order cancelled.');
  }

  /**
   * `PATCH /v3/order/{id}/draw_completed` of an on-site collection order (the team's staff drew
   * the sample): the workflow's recordOnSiteDraw update decides.
   */
  async reportOnSiteDraw(team: TeamPrincipal, order: OrderEntity): Promise<PostOrderResponse> {
    const refusal = onSiteDrawRefusal(order.flow, order.lowLevelStatus);
    if (refusal) throw badRequest(refusal);
    await this.workflows.ensureStarted(order);
    await this.workflows.runUpdate(order.id, () => this.workflows.handle(order.id).executeUpdate(recordOnSiteDraw));
    return this.respond(team, order.id, 'Draw completed.');
  }

  /** `PATCH /v3/order/{id}`: activate_by, while the order has not moved on. */
  async patch(team: TeamPrincipal, orderId: string, body: PatchOrderDto): Promise<PostOrderResponse> {
    const order = await this.queries.requireOrder(team, orderId);
    if (!ACTIVATE_BY_CHANGEABLE.includes(order.lowLevelStatus)) {
      throw badRequest(`activate_by can only change while the order is ordered or awaiting registration; it is ${order.lowLevelStatus}.`);
    }
    await this.orders.setActivateBy(order.id, body.activate_by);
    await this.workflows.ensureStarted(order);
    await this.workflows.runUpdate(order.id, () => this.workflows.handle(order.id).signal(activateByChanged, { activateBy: body.activate_by }));
    return this.respond(team, order.id, 'Order updated.');
  }

  /**
   * `POST /v3/order/{id}/test` (sandbox): the sandbox partners play the order's lifecycle (or play
   * something else from here on); an order of orderWorkflow (v1) has its simulation signalled.
   */
  async simulate(team: TeamPrincipal, orderId: string, query: SimulateQuery, body: SimulateBody | null | undefined): Promise<PostOrderResponse> {
    if (team.environment !== 'sandbox') throw badRequest('Order simulation is only available in sandbox.');
    const order = await this.queries.requireOrder(team, orderId);
    let finalStatus: OrderLowLevelStatus | null = null;
    if (query.final_status !== undefined) {
      finalStatus = parseFinalStatus(order.flow, query.final_status);
      if (!finalStatus) {
        throw validationError(['query', 'final_status'], `Not a ${collectionMethodOf(order.flow)} order status: ${query.final_status}.`, query.final_status);
      }
      if (finalStatus === 'appointment_cancelled') {
        throw badRequest('A simulation does not cancel appointments: cancel the appointment through its cancel route.');
      }
      if (!simulationCanReach(order.flow, order.lowLevelStatus, finalStatus)) {
        throw badRequest(`The order cannot reach ${eventStatus(order.flow, finalStatus)} from ${eventStatus(order.flow, order.lowLevelStatus)}.`);
      }
    }
    const ended = endedRefusal(order.flow, order.lowLevelStatus);
    if (ended) throw badRequest(`${ended} A simulation cannot move an order that has ended.`);
    await this.workflows.ensureStarted(order);
    const delayMs = query.delay !== undefined ? Math.round(query.delay * 1000) : undefined;
    const play = {
      finalStatus,
      interpretation: body?.interpretation ?? undefined,
      hasMissingResults: body?.has_missing_results ?? undefined,
      resultTypes: body?.result_types ?? undefined,
    };
    if (await this.workflows.simulatesInside(order.id)) {
      // The workflow may close between the read above and the signal: a closed workflow is a 400 too.
      await this.workflows.runUpdate(order.id, () => this.workflows.handle(order.id).signal(simulate, { ...play, delayMs }));
    } else if (finalStatus === 'cancelled') {
      // No partner cancels an order: the test does what the client would.
      await this.workflows.runUpdate(order.id, () => this.workflows.handle(order.id).executeUpdate(cancelOrder));
    } else {
      await this.workflows.playSandbox(order, { ...play, delayMs });
    }
    return this.respond(team, order.id, 'Simulation started.');
  }

  private async respond(team: TeamPrincipal, orderId: string, message: string): Promise<PostOrderResponse> {
    return { order: await this.queries.get(team, orderId), status: 'success', message };
  }
}
