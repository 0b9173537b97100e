import { HttpException, Injectable } from '@nestjs/common';
import { AppointmentAvailabilityService } from '../appointments/appointment-availability.service';
import { AppointmentBookingsService } from '../appointments/appointment-bookings.service';
import type { AppointmentView } from '../appointments/appointment-views';
import { PSC_SCHEDULING_LABS } from '../appointments/providers/appointment-provider';
import type { TeamPrincipal } from '../auth/principal';
import { notFound } from '../common/errors';
import { OrderQueriesService } from '../orders/order-queries.service';
import type { OrderView } from '../orders/order-views';
import { OrdersRepository } from '../orders/orders.repository';
import type { LabResultsRaw } from '../results';
import type { AppointmentKind } from '../../workflows/contract';
import type { LiveSession } from './portal-access.service';

/** How the patient may act on the order's appointment. */
export interface AppointmentOptions {
  kind: AppointmentKind;
  current: AppointmentView | null;
  /** No open appointment: the patient can book one. */
  canBook: boolean;
  canReschedule: boolean;
  canCancel: boolean;
  /** Walk-in at a lab whose service centers take no appointments: just walk in. */
  walkInOnly: boolean;
}

export interface PortalOrder {
  order: OrderView;
  results: LabResultsRaw | null;
  appointment: AppointmentOptions | null;
}

export interface SlotChoice {
  booking_key: string;
  start: string;
  end: string;
  location: string | null;
}

/** Slots grouped by day for the picker, in the site's time zone. */
export interface SlotPage {
  timezone: string;
  days: Array<{ date: string; slots: SlotChoice[] }>;
  nextStartDate: string | null;
}

/** Slots shown per page: keeps the picker small on a phone (each carries a signed booking key). */
const SLOTS_PER_PAGE = 24;

/**
 * The portal's reads and actions on an order, as the patient's team: the same services the API
 * calls (OrderQueriesService, AppointmentBookingsService → the order workflow's Updates), so the
 * Temporal history tells one story whoever acted. The session decides what the patient may see:
 * their own orders, or only the one the link deep-links to.
 */
@Injectable()
export class PortalOrdersService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly queries: OrderQueriesService,
    private readonly bookings: AppointmentBookingsService,
    private readonly availability: AppointmentAvailabilityService,
  ) {}

  /** The orders the session may open, newest first. */
  async visibleOrderIds(live: LiveSession): Promise<string[]> {
    if (live.link.order_id) return [live.link.order_id];
    const orders = await this.orders.ordersOfUser(scopeOf(live), live.session.user_id);
    return orders.map((order) => order.id);
  }

  async order(live: LiveSession, orderId: string): Promise<PortalOrder> {
    const order = await this.view(live, orderId);
    const reported = order.status === 'completed' || order.events.some((event) => event.status.endsWith('.partial_results'));
    const results = reported ? await this.queries.results(actorOf(live), order.id).catch(ignoreNotFound) : null;
    return { order, results, appointment: await this.appointmentOptions(live, order) };
  }

  /** How the sample of one of the session's orders is collected, as a PDF. */
  async instructionsPdf(live: LiveSession, orderId: string): Promise<Buffer> {
    const order = await this.view(live, orderId);
    return this.queries.collectionInstructionsPdf(actorOf(live), order.id);
  }

  /** The lab's report of one of the session's orders as a PDF (404 until there is one). */
  async resultPdf(live: LiveSession, orderId: string): Promise<Buffer> {
    const order = await this.view(live, orderId);
    return this.queries.resultPdf(actorOf(live), order.id);
  }

  /** A page of bookable slots near the patient (at home: their address; walk-in: their zip code). */
  async slots(live: LiveSession, orderId: string, startDate: string | undefined): Promise<SlotPage> {
    const order = await this.view(live, orderId);
    const address = order.patient_address as { first_line: string; second_line?: string | null; city: string; state: string; zip: string } | null;
    if (!address) throw notFound('Address');
    const { body } =
      order.details.type === 'at_home_phlebotomy'
        ? await this.availability.phlebotomyAvailability(
            live.session.team_id,
            {
              first_line: address.first_line,
              ...(address.second_line ? { second_line: address.second_line } : {}),
              city: address.city,
              state: address.state,
              zip_code: address.zip,
            },
            { startDate },
          )
        : await this.availability.pscAvailability(live.session.team_id, { lab: order.lab_test.lab.slug, zipCode: address.zip, radius: 25, startDate });
    const days: SlotPage['days'] = [];
    let shown = 0;
    let nextStartDate: string | null = null;
    for (const day of body.slots) {
      const open = day.slots.filter((slot) => slot.num_appointments_available > 0);
      if (open.length === 0) continue;
      if (shown >= SLOTS_PER_PAGE) {
        nextStartDate = day.date;
        break;
      }
      const taken = open.slice(0, SLOTS_PER_PAGE - shown);
      shown += taken.length;
      const location = day.location ? `${day.location.name}, ${day.location.address.first_line}, ${day.location.address.city}` : null;
      days.push({ date: day.date, slots: taken.map((slot) => ({ booking_key: slot.booking_key, start: slot.start, end: slot.end, location })) });
    }
    return { timezone: body.timezone, days, nextStartDate };
  }

  async book(live: LiveSession, orderId: string, bookingKey: string): Promise<void> {
    const { order, kind } = await this.appointmentOrder(live, orderId);
    await this.bookings.book(actorOf(live), order.id, kind, { booking_key: bookingKey });
  }

  async reschedule(live: LiveSession, orderId: string, bookingKey: string): Promise<void> {
    const { order, kind } = await this.appointmentOrder(live, orderId);
    await this.bookings.reschedule(actorOf(live), order.id, kind, { booking_key: bookingKey });
  }

  async cancel(live: LiveSession, orderId: string, reasonId: string): Promise<void> {
    const { order, kind } = await this.appointmentOrder(live, orderId);
    await this.bookings.cancel(actorOf(live), order.id, kind, { cancellation_reason_id: reasonId });
  }

  cancellationReasons(kind: AppointmentKind) {
    return this.bookings.cancellationReasons(kind);
  }

  // -------------------------------------------------------------------------------------------

  /** The order as the API shows it (its PHI read audited, without an API key), if the session may see it. */
  private async view(live: LiveSession, orderId: string): Promise<OrderView> {
    if (live.link.order_id && live.link.order_id !== orderId) throw notFound('Order');
    const order = await this.queries.get(actorOf(live), orderId);
    if (order.user_id !== live.session.user_id) throw notFound('Order');
    return order;
  }

  private async appointmentOrder(live: LiveSession, orderId: string): Promise<{ order: OrderView; kind: AppointmentKind }> {
    const order = await this.view(live, orderId);
    const kind = kindOf(order);
    if (!kind) throw notFound('Appointment');
    return { order, kind };
  }

  private async appointmentOptions(live: LiveSession, order: OrderView): Promise<AppointmentOptions | null> {
    const kind = kindOf(order);
    if (!kind) return null;
    if (kind === 'psc' && !(PSC_SCHEDULING_LABS as readonly string[]).includes(order.lab_test.lab.slug)) {
      return { kind, current: null, canBook: false, canReschedule: false, canCancel: false, walkInOnly: true };
    }
    const current = await this.bookings.get(actorOf(live), order.id, kind).catch(ignoreNotFound);
    const low = order.events.at(-1)?.status.split('.').pop() ?? '';
    const open = current !== null && current.can_reschedule;
    const waiting = ['appointment_pending', 'appointment_cancelled', 'requisition_created', 'ordered'].includes(low);
    return { kind, current, canBook: !open && waiting, canReschedule: open, canCancel: open, walkInOnly: false };
  }
}

/**
 * The team, acting through the portal: no API key (its PHI audit rows say so with a null key).
 * The order and appointment services read no region; 'us' only fills the type.
 */
function actorOf(live: LiveSession): TeamPrincipal {
  return { teamId: live.session.team_id, environment: live.link.environment, region: 'us', apiKeyId: null };
}

function scopeOf(live: LiveSession) {
  return { teamId: live.session.team_id, environment: live.link.environment };
}

function kindOf(order: OrderView): AppointmentKind | null {
  if (order.details.type === 'at_home_phlebotomy') return 'phlebotomy';
  if (order.details.type === 'walk_in_test') return 'psc';
  return null;
}

function ignoreNotFound(error: unknown): null {
  if (error instanceof HttpException && error.getStatus() === 404) return null;
  throw error;
}
