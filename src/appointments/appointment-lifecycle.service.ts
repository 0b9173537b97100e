import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PhiCipher } from '../common/crypto';
import { OutboxService } from '../events/outbox.service';
import { OrderGoneError } from '../orders/order-transitions.service';
import type { PatientAddress } from '../orders/orders.dto';
import { OrdersRepository } from '../orders/orders.repository';
import { UsersRepository } from '../users/users.repository';
import type {
  AppointmentAddress,
  AppointmentChange,
  AppointmentKind,
  AppointmentRecord,
  AppointmentStatus,
  ChangeAppointmentInput,
  CreateAppointmentInput,
} from '../../workflows/contract';
import { type AppointmentEvent, type AppointmentRow, AppointmentViews, eventStatusOf, usAddressOf } from './appointment-views';
import { AppointmentsRepository } from './appointments.repository';
import { PHLEBOTOMY_PROVIDER, PSC_PROVIDER } from './appointment-availability.service';
import { AVAILABILITY_DAYS, type AppointmentBookingProvider, type AppointmentProvider, type ProviderSlotRef } from './providers/appointment-provider';
import { addDays, todayIn } from './zoned-time';

/** How many of the earliest free slots a sandbox patient picks among (earlyFreeSlot). */
const EARLY_SLOTS_TO_PICK_FROM = 8;

type BookingProvider = AppointmentProvider & AppointmentBookingProvider;

/** The provider has no seat left in the slot. */
export class SlotTakenError extends Error {}

/** Where a simulated walk-in visit takes place (the sandbox's first service center). */
const SIMULATED_PSC_QUERY = { lab: 'quest', zip: '10001', radius: 50 };

/**
 * The appointment side of the workflow's activities. Each write is one transaction: the
 * appointment row, its event, its slot seat and `labtest.appointment.created|updated` in the
 * outbox. Idempotent: a booking is keyed by the appointment id, a change by its change id.
 */
@Injectable()
export class AppointmentLifecycleService {
  constructor(
    private readonly appointments: AppointmentsRepository,
    private readonly views: AppointmentViews,
    private readonly orders: OrdersRepository,
    private readonly users: UsersRepository,
    private readonly outbox: OutboxService,
    private readonly cipher: PhiCipher,
    @Inject(PHLEBOTOMY_PROVIDER) private readonly phlebotomy: BookingProvider,
    @Inject(PSC_PROVIDER) private readonly psc: BookingProvider,
  ) {}

  providerOf(kind: AppointmentKind): BookingProvider {
    return kind === 'psc' ? this.psc : this.phlebotomy;
  }

  providerBySlug(slug: string): BookingProvider | null {
    return [this.psc, this.phlebotomy].find((provider) => provider.slug === slug) ?? null;
  }

  async create(input: CreateAppointmentInput): Promise<AppointmentRecord> {
    const existing = await this.appointments.byId(input.appointmentId);
    if (existing) return recordOf(existing);
    const order = await this.orders.findById(input.orderId);
    if (!order) throw new OrderGoneError(`Order ${input.orderId} no longer exists.`);
    const provider = this.providerOf(input.kind);
    const homeAddress: AppointmentAddress | null = input.booking.mode === 'request' ? input.booking.address : this.patientHomeAddress(order, input.kind);
    const slot: ProviderSlotRef | null =
      input.booking.mode === 'book'
        ? { site: input.booking.slot.site, start: input.booking.slot.start, end: input.booking.slot.end }
        : input.booking.mode === 'simulated'
          ? await this.earlyFreeSlot(provider, homeAddress)
          : null;
    return this.appointments.transaction(async (manager) => {
      if (slot) await this.takeSeat(manager, provider, slot);
      const booking = await provider.book({
        appointmentId: input.appointmentId,
        slot,
        address: homeAddress ? toUsAddress(homeAddress) : null,
        notes: input.appointmentNotes,
        asyncConfirmation: input.asyncConfirmation ?? false,
        environment: order.environment,
      });
      const now = new Date();
      const event: AppointmentEvent = { created_at: now.toISOString(), status: eventStatusOf(booking.status), data: { provider: provider.publicName } };
      await this.appointments.insert(manager, {
        id: input.appointmentId,
        orderId: order.id,
        teamId: order.teamId,
        environment: order.environment,
        userId: order.userId,
        n: input.n,
        type: input.kind === 'psc' ? 'patient_service_center' : 'phlebotomy',
        provider: provider.publicName,
        providerSlug: provider.slug,
        providerId: booking.providerId,
        status: booking.status,
        site: booking.site,
        location: booking.location,
        addressEnc: this.cipher.encryptJson({ ...booking.address, access_notes: homeAddress?.access_notes ?? null }),
        // A requested appointment has no time until the provider picks one.
        startAt: input.booking.mode === 'request' ? null : (slot?.start ?? null),
        endAt: input.booking.mode === 'request' ? null : (slot?.end ?? null),
        timezone: booking.timezone,
        notesEnc: input.appointmentNotes === null ? null : this.cipher.encryptJson(input.appointmentNotes),
        asyncConfirmation: input.asyncConfirmation ?? false,
        events: [event],
        createdAt: now,
      });
      if (slot) await this.holdSeat(manager, input.appointmentId, provider, slot);
      const row = (await this.appointments.byId(input.appointmentId, manager)) as AppointmentRow;
      await this.emit(manager, row, 'labtest.appointment.created', 'created');
      return recordOf(row);
    });
  }

  async change(input: ChangeAppointmentInput): Promise<AppointmentRecord> {
    return this.appointments.transaction(async (manager) => {
      const row = await this.appointments.byId(input.appointmentId, manager, true);
      if (!row) throw new OrderGoneError(`Appointment ${input.appointmentId} no longer exists.`);
      if (row.applied_changes.includes(input.changeId)) return recordOf(row);
      const provider = this.providerBySlug(row.provider_slug);
      if (!provider) throw new Error(`Unknown appointment provider ${row.provider_slug}`);
      const next = await this.apply(manager, row, provider, input.change);
      const event: AppointmentEvent = { created_at: new Date().toISOString(), status: eventStatusOf(next.status), data: eventDataOf(input.change) };
      await this.appointments.applyChange(manager, row.id, {
        status: next.status,
        startAt: next.startAt,
        endAt: next.endAt,
        notesEnc: next.notesEnc,
        cancellationReasonId: next.cancellationReasonId,
        event,
        changeId: input.changeId,
      });
      const updated = (await this.appointments.byId(row.id, manager)) as AppointmentRow;
      await this.emit(manager, updated, 'labtest.appointment.updated', input.changeId);
      return recordOf(updated);
    });
  }

  /** The provider's side of a change, and the row's new values. */
  private async apply(
    manager: EntityManager,
    row: AppointmentRow,
    provider: BookingProvider,
    change: AppointmentChange,
  ): Promise<{ status: AppointmentStatus; startAt: Date | null; endAt: Date | null; notesEnc: string | null; cancellationReasonId: string | null }> {
    const same = {
      status: row.status,
      startAt: row.start_at,
      endAt: row.end_at,
      notesEnc: row.appointment_notes_enc,
      cancellationReasonId: row.cancellation_reason_id,
    };
    switch (change.type) {
      case 'reschedule': {
        const slot = { site: change.slot.site, start: change.slot.start, end: change.slot.end };
        await this.appointments.releaseSeat(manager, row.id);
        await this.takeSeat(manager, provider, slot);
        await this.holdSeat(manager, row.id, provider, slot);
        const notes = change.appointmentNotes ?? (row.appointment_notes_enc ? this.cipher.decryptJson<string>(row.appointment_notes_enc) : null);
        const { status } = await provider.reschedule({
          appointmentId: row.id,
          providerId: row.provider_id,
          slot,
          notes,
          asyncConfirmation: change.asyncConfirmation ?? false,
          environment: row.environment,
        });
        return {
          ...same,
          status,
          startAt: new Date(slot.start),
          endAt: new Date(slot.end),
          // New notes with each reschedule (Mar 2026); none given keeps the earlier ones.
          notesEnc: change.appointmentNotes === null ? row.appointment_notes_enc : this.cipher.encryptJson(change.appointmentNotes),
        };
      }
      case 'cancel':
        if (change.by === 'client' || change.by === 'order') {
          await provider.cancel({ appointmentId: row.id, providerId: row.provider_id, cancellationReasonId: change.cancellationReasonId, notes: change.notes });
        }
        await this.appointments.releaseSeat(manager, row.id);
        return { ...same, status: 'cancelled', cancellationReasonId: change.cancellationReasonId ?? null };
      case 'provider_status':
        return {
          ...same,
          status: change.status,
          startAt: change.startAt ? new Date(change.startAt) : row.start_at,
          endAt: change.endAt ? new Date(change.endAt) : row.end_at,
        };
      case 'draw_completed':
        return { ...same, status: 'completed' };
    }
  }

  /**
   * Takes a seat in the slot or fails with SlotTakenError. The advisory lock (per provider, site
   * and start) makes concurrent bookings of one slot count one after the other.
   */
  private async takeSeat(manager: EntityManager, provider: BookingProvider, slot: ProviderSlotRef): Promise<void> {
    const key = `${provider.slug}|${slot.site}|${new Date(slot.start).toISOString()}`;
    await this.appointments.lockSlot(manager, key);
    if ((await this.seatsTaken(manager, provider, slot.site, slot.start)) >= provider.capacity(slot.site))
      throw new SlotTakenError('This slot is no longer available: it was booked by someone else. Fetch availability again.');
  }

  private async seatsTaken(manager: EntityManager, provider: BookingProvider, site: string, start: string): Promise<number> {
    return (await this.appointments.heldSeats(manager, provider.slug, [{ site, start }])).in(site, start);
  }

  private async holdSeat(manager: EntityManager, appointmentId: string, provider: BookingProvider, slot: ProviderSlotRef): Promise<void> {
    await this.appointments.holdSeat(manager, appointmentId, provider.slug, slot.site, new Date(slot.start));
  }

  /** The patient's address for an at-home draw (null: a service-center visit, or no address). */
  private patientHomeAddress(order: { patientAddressEnc: string | null }, kind: AppointmentKind): AppointmentAddress | null {
    const patientAddress = order.patientAddressEnc ? this.cipher.decryptJson<PatientAddress>(order.patientAddressEnc) : null;
    if (!patientAddress || kind !== 'phlebotomy') return null;
    return {
      first_line: patientAddress.first_line,
      second_line: patientAddress.second_line ?? null,
      city: patientAddress.city,
      state: patientAddress.state,
      zip_code: patientAddress.zip,
      access_notes: patientAddress.access_notes ?? null,
    };
  }

  /**
   * An early free slot of the order's appointment kind from tomorrow on, with its provider's slug:
   * what the sandbox patient of `POST /v3/order/{id}/test` books (SandboxAppointmentPartner).
   */
  async earlyFreeSlotOf(orderId: string, kind: AppointmentKind): Promise<ProviderSlotRef & { provider: string }> {
    const order = await this.orders.findById(orderId);
    if (!order) throw new OrderGoneError(`Order ${orderId} no longer exists.`);
    const provider = this.providerOf(kind);
    return { ...(await this.earlyFreeSlot(provider, this.patientHomeAddress(order, kind))), provider: provider.slug };
  }

  /**
   * A sandbox simulation's slot: one of the first EARLY_SLOTS_TO_PICK_FROM bookable slots from
   * tomorrow on, at random. Not always the first: many sandbox patients booking at once (the fault
   * run's 20 at-home orders) would all ask for the same seat and be refused in turn.
   */
  private async earlyFreeSlot(provider: BookingProvider, address: AppointmentAddress | null): Promise<ProviderSlotRef> {
    const nowMs = Date.now();
    const startDate = addDays(todayIn('UTC', nowMs), 1);
    const availability = await provider.availability(
      provider.kind === 'psc'
        ? { kind: 'psc', ...SIMULATED_PSC_QUERY, startDate, days: AVAILABILITY_DAYS, nowMs }
        : {
            kind: 'phlebotomy',
            address: toUsAddress(address ?? { first_line: '', city: '', state: '', zip_code: '' }),
            startDate,
            days: AVAILABILITY_DAYS,
            nowMs,
          },
    );
    const slots = (availability?.days ?? []).flatMap((day) =>
      day.slots.map((slot) => ({ site: day.location?.code ?? availability?.area ?? '', start: slot.start, end: slot.end })),
    );
    // The seats of the whole window in one query. Only a hint: takeSeat counts again under the lock.
    const held = await this.appointments.heldSeatsNow(provider.slug, slots);
    const early = slots.filter((slot) => held.in(slot.site, slot.start) < provider.capacity(slot.site)).slice(0, EARLY_SLOTS_TO_PICK_FROM);
    if (early.length > 0) return early[Math.floor(Math.random() * early.length)];
    throw new SlotTakenError('The sandbox provider has no free slot for this order in the next 14 days.');
  }

  private async emit(manager: EntityManager, row: AppointmentRow, eventType: 'labtest.appointment.created' | 'labtest.appointment.updated', step: string) {
    await this.outbox.record(manager, [
      {
        eventType,
        idempotencyKey: `appointment:${row.id}:${step}`,
        teamId: row.team_id,
        environment: row.environment,
        userId: row.user_id,
        clientUserId: (await this.users.clientUserIdOf(row.user_id, manager)) ?? '',
        data: this.views.view(row),
        subjectId: row.id,
      },
    ]);
  }
}

function recordOf(row: AppointmentRow): AppointmentRecord {
  return {
    status: row.status,
    startAt: row.start_at ? new Date(row.start_at).toISOString() : null,
    endAt: row.end_at ? new Date(row.end_at).toISOString() : null,
  };
}

/** The address as a provider gets it: Junction's UsAddress with the access notes for the visit. */
function toUsAddress(address: AppointmentAddress) {
  return { ...usAddressOf(address), ...(address.access_notes ? { access_notes: address.access_notes } : {}) };
}

/** What an appointment event tells beyond its status. */
function eventDataOf(change: AppointmentChange): Record<string, unknown> {
  switch (change.type) {
    case 'reschedule':
      return { rescheduled_to: change.slot.start };
    case 'cancel':
      return { cancelled_by: change.by, ...(change.cancellationReasonId ? { cancellation_reason_id: change.cancellationReasonId } : {}) };
    case 'provider_status':
      return { reported_by: 'provider' };
    case 'draw_completed':
      return { reported_by: 'client' };
  }
}
