import { Eta } from 'eta';
import type { OutboxEntry } from '../adapters/notifications/notifications';
import type { CancellationReason } from '../appointments/providers/appointment-provider';
import type { OrderView } from '../orders/order-views';
import { resultFlag } from '../results';
import type { PortalBrand } from './portal-brand';
import type { PortalOrder, SlotPage } from './portal-orders.service';
import type { CodeChannel } from './portal-access.service';
import { collectionInWords, dayInWords, eventInWords, timeInWords, timelineInWords, whenInWords } from './plain-words';
import { CSS, LAYOUT } from './views/layout';
import { ORDER_PAGE, ORDERS_PAGE, OUTBOX_PAGE, PROBLEM_PAGE, SLOTS_PAGE, VERIFY_PAGE } from './views/pages';

/** What every page gets: the brand, and the session's CSRF token once signed in (shows "Sign out"). */
export interface PageFrame {
  brand: PortalBrand;
  csrf?: string;
  /** The footer's words when the brand names no support contact (the layout has the patient's). */
  fallbackHelp?: string;
}

const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });
for (const [name, template] of Object.entries({
  layout: LAYOUT,
  order: ORDER_PAGE,
  orders: ORDERS_PAGE,
  slots: SLOTS_PAGE,
  verify: VERIFY_PAGE,
  problem: PROBLEM_PAGE,
  outbox: OUTBOX_PAGE,
})) {
  eta.loadTemplate(`@${name}`, template);
}

function page(name: string, title: string, frame: PageFrame, data: object): string {
  return eta.render(`@${name}`, { ...data, title, brand: frame.brand, csrf: frame.csrf ?? null, css: CSS, fallbackHelp: frame.fallbackHelp });
}

/** The order page: the order, its tests and preparation, appointment, results and timeline in plain words. */
export function orderPage(
  frame: PageFrame,
  model: PortalOrder & { orderCount: number; reasons: CancellationReason[]; flash?: string | null; error?: string | null },
): string {
  const { order, appointment, results } = model;
  const zone = appointment?.current?.iana_timezone ?? 'UTC';
  return page('order', order.lab_test.name, frame, {
    flash: model.flash ?? null,
    error: model.error ?? null,
    o: {
      id: order.id,
      shortId: order.id.slice(0, 8),
      testName: order.lab_test.name,
      statusWords: eventInWords(order.last_event?.status ?? order.status),
      collection: collectionInWords(order.details.type),
      labName: order.lab_test.lab.name,
      fasting: order.lab_test.fasting,
      markers: order.lab_test.markers.map((marker) => marker.name),
      turnaround: turnaround(order),
      requisitionUrl: order.requisition_form_url,
      orderCount: model.orderCount,
      timeline: timelineOf(order, zone),
    },
    appt: appointment && {
      ...appointment,
      reasons: model.reasons,
      current: appointment.current && {
        when: appointment.current.start_at ? whenInWords(appointment.current.start_at, appointment.current.iana_timezone ?? 'UTC') : 'Time to be confirmed',
        where: [appointment.current.address.first_line, appointment.current.address.city, appointment.current.address.state].join(', '),
        status: appointment.current.event_status === 'scheduled' ? 'Booked' : appointment.current.event_status.replace(/_/g, ' '),
      },
    },
    results: results && {
      summary: `${results.metadata.status === 'partial' ? 'Some results' : 'All results'} reported ${whenInWords(results.metadata.date_reported)}${results.metadata.laboratory ? ` by ${results.metadata.laboratory}` : ''}.`,
      rows: results.results.map((result) => ({
        name: result.name,
        value: [result.result, result.unit].filter(Boolean).join(' '),
        flag: resultFlag(result),
        range: result.reference_range ?? rangeOf(result.min_range_value, result.max_range_value, result.unit),
      })),
      missing: (results.missing_results ?? []).map((missing) => missing.name),
    },
  });
}

export function ordersPage(frame: PageFrame, orders: OrderView[]): string {
  return page('orders', 'Your lab orders', frame, {
    orders: orders.map((order) => ({ id: order.id, testName: order.lab_test.name, statusWords: eventInWords(order.last_event?.status ?? order.status) })),
  });
}

export function slotsPage(frame: PageFrame, orderId: string, action: 'book' | 'reschedule', slots: SlotPage): string {
  return page('slots', 'Choose a time', frame, {
    orderId,
    action,
    timezone: slots.timezone,
    nextStartDate: slots.nextStartDate,
    days: slots.days.map((day) => ({
      label: dayInWords(`${day.date}T12:00:00Z`),
      location: day.slots[0]?.location ?? null,
      slots: day.slots.map((slot) => ({
        booking_key: slot.booking_key,
        time: `${timeInWords(slot.start, slots.timezone)} to ${timeInWords(slot.end, slots.timezone)}`,
      })),
    })),
  });
}

export function verifyPage(
  frame: PageFrame,
  data: { code: string; channels: CodeChannel[]; sentTo?: string | null; error?: string | null; codeMinutes: number },
): string {
  return page('verify', 'Check it is you', frame, { sentTo: null, error: null, ...data });
}

export function problemPage(frame: PageFrame, heading: string, message: string): string {
  return page('problem', heading, frame, { heading, message });
}

export function outboxPage(frame: PageFrame, messages: readonly OutboxEntry[]): string {
  return page('outbox', 'Development outbox', frame, { messages });
}

/** The timeline: each event's time in the appointment's zone, its words read in the light of the events before it. */
function timelineOf(order: OrderView, zone: string): Array<{ at: string; when: string; words: string }> {
  const words = timelineInWords(order.events.map((event) => event.status));
  return order.events.map((event, index) => ({ at: event.created_at, when: whenInWords(event.created_at, zone), words: words[index] }));
}

function turnaround(order: OrderView): string | null {
  if (order.expected_result_by_date) return `by ${dayInWords(`${order.expected_result_by_date.slice(0, 10)}T12:00:00Z`)}`;
  const days = order.lab_test.common_tat_days;
  return days ? `usually ${days} day${days === 1 ? '' : 's'} after the lab receives your sample` : null;
}

function rangeOf(min: number | undefined, max: number | undefined, unit: string | undefined): string {
  const suffix = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) return `${min} to ${max}${suffix}`;
  if (max !== undefined) return `below ${max}${suffix}`;
  if (min !== undefined) return `above ${min}${suffix}`;
  return '—';
}
