import fc from 'fast-check';
import {
  appointmentProviderUpdate,
  appointmentState,
  appointmentWorkflowId,
  type AppointmentSlot,
  bookAppointment,
  cancelAppointment,
  labUpdate,
  orderState,
  rescheduleAppointment,
  simulate,
} from '../../workflows/contract';
import { type OrderLowLevelStatus } from '../../workflows/order/order-statuses';
import { canTransition } from '../../workflows/order/order-lifecycle';
import {
  FakeActivities,
  orderInput,
  startOrder,
  startWorkflowHarness,
  writeFixtureHistories,
  waitFor,
  type WorkflowHarness,
} from '../helpers/workflow-harness';

/**
 * The order workflow with fake activities: messages (appointment reports, lab facts, updates)
 * arriving while a transition is being recorded are applied in order after it, and a refused
 * sandbox booking never fails the workflow.
 */
describe('order workflow: messages racing with transitions', () => {
  let harness: WorkflowHarness;
  let fakes: FakeActivities;

  beforeAll(async () => {
    fakes = new FakeActivities();
    harness = await startWorkflowHarness(fakes);
  });
  /**
   * Workflow ids worth keeping as replay fixtures; `WORKFLOW_FIXTURES=1 npx jest <this file>`
   * writes their histories to test/fixtures/histories (plain payloads: no codec here).
   */
  const fixtures: Record<string, string> = {};
  afterAll(async () => {
    await writeFixtureHistories(harness.client, fixtures);
    await harness?.close();
  });

  const slot = (hour: number): AppointmentSlot => ({
    kind: 'phlebotomy',
    provider: 'getlabs',
    site: '85004',
    start: `2030-01-07T${String(hour).padStart(2, '0')}:00:00.000Z`,
    end: `2030-01-07T${String(hour).padStart(2, '0')}:30:00.000Z`,
    expires_at: '2099-01-01T00:00:00.000Z',
  });
  const statusesReach = (orderId: string, expected: string[]) =>
    waitFor(
      () => {
        const statuses = fakes.statuses(orderId);
        return statuses.length >= expected.length ? statuses : undefined;
      },
      `${expected.join(', ')} for ${orderId}`,
    );
  const provider = (orderId: string, n: number, status: 'confirmed' | 'in_progress' | 'completed' | 'cancelled') =>
    harness.client.workflow.getHandle(appointmentWorkflowId(orderId, n)).signal(appointmentProviderUpdate, { status });
  const childStatus = (orderId: string, n: number) => harness.client.workflow.getHandle(appointmentWorkflowId(orderId, n)).query(appointmentState);

  /** A production at-home order with appointment 1 booked (pending until the provider confirms). */
  async function atHomeOrderWithPendingAppointment() {
    const input = orderInput('at_home_phlebotomy', 'production');
    const handle = await startOrder(harness, input);
    await statusesReach(input.orderId, ['requisition_created', 'appointment_pending']);
    const booked = await handle.executeUpdate(bookAppointment, {
      args: [{ kind: 'phlebotomy', booking: { mode: 'book', slot: slot(15) }, appointmentNotes: null, asyncConfirmation: true }],
    });
    expect(booked.status).toBe('pending');
    return { orderId: input.orderId, handle };
  }

  /**
   * Holds the order's appointment_scheduled transition while the provider confirms, starts and
   * completes appointment 1 (its child has ended); returns the latch's release.
   */
  async function drawReportedWhileScheduledIsHeld(orderId: string): Promise<() => void> {
    const release = fakes.hold((input) => input.orderId === orderId && input.status.endsWith('.appointment_scheduled'));
    await provider(orderId, 1, 'confirmed');
    await waitFor(() => (fakes.heldCount() === 1 ? true : undefined), 'the appointment_scheduled transition to be held');
    await provider(orderId, 1, 'in_progress');
    await provider(orderId, 1, 'completed');
    await harness.client.workflow.getHandle(appointmentWorkflowId(orderId, 1)).result();
    return release;
  }

  it('records the draw that was reported while appointment_scheduled was being recorded', async () => {
    const { orderId, handle } = await atHomeOrderWithPendingAppointment();
    fixtures['order--at-home-draw-reported-during-transition'] = handle.workflowId;
    const release = await drawReportedWhileScheduledIsHeld(orderId);
    release();

    const statuses = await statusesReach(orderId, ['requisition_created', 'appointment_pending', 'appointment_scheduled', 'draw_completed']);
    expect(statuses).toEqual(['requisition_created', 'appointment_pending', 'appointment_scheduled', 'draw_completed']);
    await handle.signal(labUpdate, { low: 'completed' });
    expect(await handle.result()).toEqual({ status: 'completed.at_home_phlebotomy.completed' });
  });

  it('applies a lab fact that arrived before the draw report only after the draw', async () => {
    const { orderId, handle } = await atHomeOrderWithPendingAppointment();
    fixtures['order--at-home-lab-fact-before-draw'] = handle.workflowId;
    const release = await drawReportedWhileScheduledIsHeld(orderId);
    await handle.signal(labUpdate, { low: 'partial_results' });
    release();

    await statusesReach(orderId, ['requisition_created', 'appointment_pending', 'appointment_scheduled', 'draw_completed', 'partial_results']);
    expect(fakes.statuses(orderId)).toEqual(['requisition_created', 'appointment_pending', 'appointment_scheduled', 'draw_completed', 'partial_results']);
    // Settles with nothing left waiting (the last activity's result may still be on its way).
    await waitFor(async () => {
      const { pending } = await handle.query(orderState);
      return pending && pending.facts + pending.appointmentReports === 0 && !pending.transitionInFlight ? true : undefined;
    }, 'the order to settle');
    await handle.signal(labUpdate, { low: 'completed' });
    expect(await handle.result()).toEqual({ status: 'completed.at_home_phlebotomy.completed' });
  });

  it('records a refused sandbox booking and books another slot; the workflow completes', async () => {
    const input = orderInput('at_home_phlebotomy', 'sandbox');
    fakes.refuseBookings = 2;
    const handle = await startOrder(harness, input);
    fixtures['order--sandbox-at-home-booking-refused-twice'] = handle.workflowId;
    await handle.signal(simulate, { delayMs: 50 });
    const result = await handle.result().finally(() => (fakes.refuseBookings = 0));
    expect(result).toEqual({ status: 'completed.at_home_phlebotomy.completed' });
    const recorded = fakes.transitions.get(input.orderId) ?? [];
    expect(recorded.map((transition) => transition.status.split('.')[2])).toEqual([
      'requisition_created',
      'appointment_pending',
      'appointment_pending',
      'appointment_pending',
      'appointment_scheduled',
      'draw_completed',
      'partial_results',
      'completed',
    ]);
    expect(recorded[2].statusDetail).toMatch(/^Simulated booking refused \(This slot is no longer available.*\); booking another slot\.$/);
    expect(recorded[3].statusDetail).toMatch(/^Simulated booking refused/);
    expect(recorded.map((transition) => transition.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('walk-in, sandbox: leaves collection when its simulated visit completed while appointment_scheduled was being recorded', async () => {
    const input = orderInput('walk_in_test', 'sandbox');
    const handle = await startOrder(harness, input);
    fixtures['order--sandbox-walk-in-visit-completed-during-transition'] = handle.workflowId;
    await statusesReach(input.orderId, ['requisition_created', 'appointment_pending']);
    const release = fakes.hold((transition) => transition.orderId === input.orderId && transition.status.endsWith('.appointment_scheduled'));
    await handle.signal(simulate, { delayMs: 50 });
    await waitFor(() => (fakes.heldCount() === 1 ? true : undefined), 'the appointment_scheduled transition to be held');
    // The simulated visit runs its course (confirmed, in progress, completed) meanwhile.
    expect(await harness.client.workflow.getHandle(appointmentWorkflowId(input.orderId, 1)).result()).toEqual({ status: 'completed' });
    release();
    expect(await handle.result()).toEqual({ status: 'completed.walk_in_test.completed' });
    expect(fakes.statuses(input.orderId)).toEqual(['requisition_created', 'appointment_pending', 'appointment_scheduled', 'partial_results', 'completed']);
  });

  it('property: whatever the interleaving of provider reports, updates and slow transitions, the order ends where its appointment is', async () => {
    type Action =
      | { type: 'provider'; status: 'confirmed' | 'in_progress' | 'completed' | 'cancelled' }
      | { type: 'reschedule'; hour: number }
      | { type: 'cancel' }
      | { type: 'book'; hour: number }
      | { type: 'hold' }
      | { type: 'release' };
    const action: fc.Arbitrary<Action> = fc.oneof(
      fc.record({
        type: fc.constant('provider' as const),
        status: fc.constantFrom('confirmed' as const, 'in_progress' as const, 'completed' as const, 'cancelled' as const),
      }),
      fc.record({ type: fc.constant('reschedule' as const), hour: fc.integer({ min: 8, max: 18 }) }),
      fc.record({ type: fc.constant('cancel' as const) }),
      fc.record({ type: fc.constant('book' as const), hour: fc.integer({ min: 8, max: 18 }) }),
      fc.record({ type: fc.constant('hold' as const) }),
      fc.record({ type: fc.constant('release' as const) }),
    );

    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 2, maxLength: 8 }), fc.boolean(), async (actions, asyncConfirmation) => {
        const input = orderInput('at_home_phlebotomy', 'production');
        const handle = await startOrder(harness, input);
        const orderId = input.orderId;
        await statusesReach(orderId, ['requisition_created', 'appointment_pending']);
        await handle.executeUpdate(bookAppointment, {
          args: [{ kind: 'phlebotomy', booking: { mode: 'book', slot: slot(8) }, appointmentNotes: null, asyncConfirmation }],
        });
        let release: (() => void) | null = null;
        const settling: Array<Promise<unknown>> = [];
        const quietly = (promise: Promise<unknown>) => settling.push(promise.catch(() => undefined));
        for (const step of actions) {
          const latest = (await handle.query(orderState)).appointment;
          const n = latest?.n ?? 1;
          if (step.type === 'hold' && !release) release = fakes.hold((transition) => transition.orderId === orderId);
          if (step.type === 'release' && release) {
            release();
            release = null;
          }
          if (step.type === 'provider') quietly(provider(orderId, n, step.status));
          if (step.type === 'reschedule') quietly(handle.executeUpdate(rescheduleAppointment, { args: [{ slot: slot(step.hour), appointmentNotes: null }] }));
          if (step.type === 'cancel')
            quietly(handle.executeUpdate(cancelAppointment, { args: [{ kind: 'phlebotomy', cancellationReasonId: 'other', notes: null }] }));
          if (step.type === 'book') {
            quietly(
              handle.executeUpdate(bookAppointment, {
                args: [{ kind: 'phlebotomy', booking: { mode: 'book', slot: slot(step.hour) }, appointmentNotes: null }],
              }),
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        release?.();
        await Promise.all(settling);

        // Settled: nothing waiting in the order, and it agrees with its latest appointment.
        const settled = await waitFor(
          async () => {
            const state = await handle.query(orderState);
            const appointment = state.appointment;
            if (!appointment || state.pending?.facts || state.pending?.appointmentReports || state.pending?.transitionInFlight) return undefined;
            const child = await childStatus(orderId, appointment.n);
            return child.version === appointment.version ? { state, child } : undefined;
          },
          `order ${orderId} to settle after ${JSON.stringify(actions)}`,
        );
        const statuses = fakes.statuses(orderId) as OrderLowLevelStatus[];
        const expected: Record<string, OrderLowLevelStatus> = {
          pending: 'appointment_pending',
          reserved: 'appointment_pending',
          confirmed: 'appointment_scheduled',
          in_progress: 'appointment_scheduled',
          completed: 'draw_completed',
          cancelled: 'appointment_cancelled',
        };
        expect({ actions, last: statuses.at(-1) }).toEqual({ actions, last: expected[settled.child.status] });
        (['ordered', ...statuses] as OrderLowLevelStatus[]).forEach((status, index, all) => {
          if (index > 0)
            expect({ from: all[index - 1], to: status, allowed: canTransition('at_home_phlebotomy', all[index - 1], status) }).toMatchObject({ allowed: true });
        });
        const seqs = (fakes.transitions.get(orderId) ?? []).map((transition) => transition.seq);
        expect(seqs).toEqual(seqs.map((_, index) => index + 2));
        await handle.terminate('property run done').catch(() => undefined);
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});
