/**
 * The appointment lifecycle as pure tables: where an appointment's story ends, what its provider
 * may report from each status, the steps a sandbox simulation walks, the statuses that still take
 * a reschedule or a draw, what each status means for the order, and each state question with its
 * refusal (the API's pre-checks and the order workflow's validators ask the same functions). No
 * I/O, no clock: the appointment and order workflows, the API and the unit tests share it.
 */
import type { AppointmentKind, AppointmentProviderUpdate, AppointmentSlot, AppointmentStatus } from '../contract';
import { collectionMethodOf, isAppointmentFlow, type LowStatus, type OrderFlow } from '../order/order-statuses';

/** Where an appointment's story ends (its workflow closes; the order may book another). */
export const FINAL: readonly AppointmentStatus[] = ['completed', 'cancelled'];

export function isFinal(status: AppointmentStatus): boolean {
  return FINAL.includes(status);
}

/** What the provider may report from each status (anything else is stale and ignored). */
export const PROVIDER_MOVES: Record<AppointmentStatus, ReadonlyArray<AppointmentProviderUpdate['status']>> = {
  pending: ['confirmed', 'cancelled'],
  reserved: ['confirmed', 'cancelled'],
  confirmed: ['confirmed', 'in_progress', 'completed', 'cancelled'],
  in_progress: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

/** A sandbox simulation stands in for the provider up to `confirmed` or `completed`. */
export type SimulatedUntil = 'confirmed' | 'completed';
export type SimulatedStatus = 'confirmed' | 'in_progress' | 'completed';

/** The next status a sandbox simulation reports. */
export const SIMULATED_NEXT: Partial<Record<AppointmentStatus, SimulatedStatus>> = {
  pending: 'confirmed',
  reserved: 'confirmed',
  confirmed: 'in_progress',
  in_progress: 'completed',
};

/** The status a simulation heading for `until` reports next from `status` (null: nothing to report). */
export function simulatedNextStatus(status: AppointmentStatus, until: SimulatedUntil): SimulatedStatus | null {
  if (until === 'confirmed' && status === 'confirmed') return null;
  return SIMULATED_NEXT[status] ?? null;
}

/** Statuses an appointment can still be rescheduled or cancelled from (Junction's `can_reschedule`). */
export const RESCHEDULABLE: readonly AppointmentStatus[] = ['pending', 'reserved', 'confirmed'];

/** Statuses an at-home draw can be reported completed from. */
export const DRAWABLE: readonly AppointmentStatus[] = ['confirmed', 'in_progress'];

/** The kind of appointment an appointment flow collects its sample at (walk-in: a service center). */
export function appointmentKindOf(flow: OrderFlow): AppointmentKind {
  return flow === 'walk_in_test' ? 'psc' : 'phlebotomy';
}

/** How each kind of appointment is named in messages. */
export const APPOINTMENT_KIND_NAMES: Record<AppointmentKind, string> = { phlebotomy: 'at-home phlebotomy', psc: 'walk-in (patient service center)' };

/** What an appointment's status means for its order (null: nothing to record). */
export function orderStatusOfAppointment(flow: OrderFlow, status: AppointmentStatus): LowStatus | null {
  switch (status) {
    case 'pending':
    case 'reserved':
      return 'appointment_pending';
    case 'confirmed':
      return 'appointment_scheduled';
    case 'cancelled':
      return 'appointment_cancelled';
    case 'completed':
      return flow === 'at_home_phlebotomy' ? 'draw_completed' : null;
    case 'in_progress':
      return null;
  }
}

// ---------------------------------------------------------------------------------------------
// State questions with their refusals: null when allowed, otherwise why not.

/** Why an order takes no appointment of this kind (null: it does). */
export function appointmentKindRefusal(orderId: string, flow: OrderFlow, kind: AppointmentKind): string | null {
  if (isAppointmentFlow(flow) && appointmentKindOf(flow) === kind) return null;
  return `Order ${orderId} is a ${collectionMethodOf(flow)} order, not a ${APPOINTMENT_KIND_NAMES[kind]} order.`;
}

/**
 * Why the order's open appointment (null: it has none) cannot take a change now. `allowed`: the
 * statuses the change is allowed from; `action`: the change in words ("rescheduled").
 */
export function openAppointmentRefusal(open: AppointmentStatus | null, allowed: readonly AppointmentStatus[], action: string): string | null {
  if (open === null) return 'The order has no open appointment.';
  return allowed.includes(open) ? null : `The appointment cannot be ${action}: it is ${open}.`;
}

export const BOOKING_KEY_EXPIRED = 'The booking_key has expired; fetch availability again for a fresh one.';

/** Why a booking key's slot does not fit an appointment of this kind (null: it does). */
export function slotKindRefusal(slotKind: AppointmentKind, kind: AppointmentKind): string | null {
  return slotKind === kind ? null : `This booking_key is for a ${APPOINTMENT_KIND_NAMES[slotKind]} appointment.`;
}

/** Why a slot cannot be booked for an appointment of this kind at `now` (epoch ms; null: it can). */
export function slotRefusal(slot: AppointmentSlot, kind: AppointmentKind, now: number): string | null {
  return slotKindRefusal(slot.kind, kind) ?? (Date.parse(slot.expires_at) <= now ? BOOKING_KEY_EXPIRED : null);
}
