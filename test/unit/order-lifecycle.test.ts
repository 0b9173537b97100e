import { serialization } from '@tryvital/vital-node';
import {
  eventStatus,
  isStatusOf,
  ORDER_FLOWS,
  ORDER_LOW_LEVEL_STATUSES,
  type OrderFlow,
  type OrderLowLevelStatus,
  parseEventStatus,
  sourceOf,
  statusesOf,
  topLevelStatus,
} from '../../workflows/order/order-statuses';
import {
  allowedTransitions,
  assertTransition,
  canTransition,
  isCancellable,
  isTerminal,
  onSiteDrawRefusal,
  parseFinalStatus,
  REGISTRABLE_FROM,
  simulatedNext,
  simulationCanReach,
  SUCCESS_PATH,
} from '../../workflows/order/order-lifecycle';

/** Walks a simulation from `start` to where it stops, applying the workflow's own steps by hand. */
function simulate(flow: OrderFlow, final: OrderLowLevelStatus | null, ownSteps: OrderLowLevelStatus[]): OrderLowLevelStatus[] {
  const visited: OrderLowLevelStatus[] = [SUCCESS_PATH[flow][0]];
  let current = visited[0];
  const own = [...ownSteps];
  for (let guard = 0; guard < 50; guard += 1) {
    let next = simulatedNext(flow, current, final);
    if (next === null && own.length > 0 && current !== final) next = own.shift()!;
    if (next === null) break;
    assertTransition(flow, current, next);
    visited.push(next);
    current = next;
  }
  return visited;
}

describe('order lifecycle tables', () => {
  it.each(ORDER_FLOWS)('%s: every transition stays inside the flow and leaves no terminal state', (flow) => {
    for (const from of statusesOf(flow)) {
      for (const to of allowedTransitions(flow, from)) {
        expect(isStatusOf(flow, to)).toBe(true);
      }
      if (isTerminal(from) && from !== 'completed') expect(allowedTransitions(flow, from)).toEqual([]);
    }
    // completed may only be corrected.
    expect(allowedTransitions(flow, 'completed')).toEqual(['corrected']);
  });

  it.each(ORDER_FLOWS)('%s: the success path is a chain of allowed transitions ending completed', (flow) => {
    const path = SUCCESS_PATH[flow];
    for (let i = 1; i < path.length; i += 1) expect(canTransition(flow, path[i - 1], path[i])).toBe(true);
    expect(path[0]).toBe('ordered');
    expect(path.at(-1)).toBe('completed');
  });

  it.each(ORDER_FLOWS)('%s: every non-terminal status can reach a terminal one', (flow) => {
    for (const start of statusesOf(flow)) {
      const seen = new Set<OrderLowLevelStatus>([start]);
      const queue = [start];
      let reachesEnd = isTerminal(start);
      while (queue.length > 0 && !reachesEnd) {
        for (const next of allowedTransitions(flow, queue.shift()!)) {
          if (isTerminal(next)) reachesEnd = true;
          if (!seen.has(next)) {
            seen.add(next);
            queue.push(next);
          }
        }
      }
      expect({ start, reachesEnd }).toEqual({ start, reachesEnd: true });
    }
  });

  it('names event statuses <top>.<method>.<low>, all of which the SDK knows (except newer ones)', () => {
    expect(eventStatus('testkit', 'ordered')).toBe('received.testkit.ordered');
    expect(eventStatus('registrable_testkit', 'awaiting_registration')).toBe('received.testkit.awaiting_registration');
    expect(eventStatus('testkit', 'transit_customer')).toBe('collecting_sample.testkit.transit_customer');
    expect(eventStatus('testkit', 'problem_in_transit_lab')).toBe('collecting_sample.testkit.problem_in_transit_lab');
    expect(eventStatus('testkit', 'do_not_process')).toBe('cancelled.testkit.do_not_process');
    const sdk = serialization.OrderStatus;
    const newer = new Set(['lab_processing_blocked', 'corrected']);
    for (const flow of ORDER_FLOWS) {
      for (const low of statusesOf(flow)) {
        if (newer.has(low)) continue;
        expect({ status: eventStatus(flow, low), ok: sdk.parse(eventStatus(flow, low)).ok }).toEqual({ status: eventStatus(flow, low), ok: true });
      }
    }
  });

  it('parses event statuses and simulation final statuses', () => {
    expect(parseEventStatus('failed.testkit.lost')).toEqual({ top: 'failed', method: 'testkit', low: 'lost' });
    expect(parseEventStatus('failed.testkit')).toBeNull();
    expect(parseEventStatus('nope.testkit.lost')).toBeNull();
    expect(parseFinalStatus('testkit', 'completed.testkit.completed')).toBe('completed');
    expect(parseFinalStatus('testkit', 'sample_error')).toBe('sample_error');
    expect(parseFinalStatus('testkit', 'completed.walk_in_test.completed')).toBeNull();
    expect(parseFinalStatus('testkit', 'received.testkit.completed')).toBeNull();
    expect(parseFinalStatus('testkit', 'appointment_pending')).toBeNull();
  });

  it('lets customers cancel only before a kit ships (Junction cancellable sets)', () => {
    expect(['ordered', 'requisition_created', 'requisition_bypassed'].every((s) => isCancellable('testkit', s as OrderLowLevelStatus))).toBe(true);
    expect(['ordered', 'awaiting_registration'].every((s) => isCancellable('registrable_testkit', s as OrderLowLevelStatus))).toBe(true);
    const never: OrderLowLevelStatus[] = [
      'transit_customer',
      'out_for_delivery',
      'with_customer',
      'registered',
      'transit_lab',
      'delivered_to_lab',
      'cancelled',
      'do_not_process',
      'completed',
      'lost',
      'sample_error',
      'failure_to_deliver_to_customer',
      'failure_to_deliver_to_lab',
    ];
    for (const flow of ORDER_FLOWS) for (const low of never) expect({ flow, low, c: isCancellable(flow, low) }).toEqual({ flow, low, c: false });
    // Every cancellable status really can move to cancelled (an at-home order with a scheduled
    // appointment through appointment_cancelled: its appointment is cancelled first).
    for (const flow of ORDER_FLOWS) {
      for (const low of ORDER_LOW_LEVEL_STATUSES) {
        if (!isCancellable(flow, low)) continue;
        const direct = canTransition(flow, low, 'cancelled');
        const viaAppointment = canTransition(flow, low, 'appointment_cancelled') && canTransition(flow, 'appointment_cancelled', 'cancelled');
        expect({ flow, low, cancellable: direct || (flow === 'at_home_phlebotomy' && viaAppointment) }).toEqual({ flow, low, cancellable: true });
      }
    }
  });

  it('registers a registrable kit only once it has shipped', () => {
    for (const low of REGISTRABLE_FROM) expect(canTransition('registrable_testkit', low, 'registered')).toBe(true);
    expect(REGISTRABLE_FROM).not.toContain('awaiting_registration');
    expect(isStatusOf('testkit', 'registered')).toBe(false);
    expect(isStatusOf('testkit', 'awaiting_registration')).toBe(false);
    expect(allowedTransitions('testkit', 'with_customer')).not.toContain('registered');
  });

  it('maps low-level statuses to the top level Junction documents', () => {
    expect(topLevelStatus('testkit', 'ordered')).toBe('received');
    expect(topLevelStatus('testkit', 'delivered_to_lab')).toBe('sample_with_lab');
    expect(topLevelStatus('testkit', 'failure_to_deliver_to_lab')).toBe('failed');
    expect(topLevelStatus('registrable_testkit', 'registered')).toBe('received');
    expect(() => topLevelStatus('testkit', 'appointment_pending')).toThrow();
    expect(() => assertTransition('testkit', 'transit_customer', 'cancelled')).toThrow(/Illegal/);
  });

  it('attributes courier and lab facts to their sources', () => {
    expect(sourceOf('out_for_delivery')).toBe('courier');
    expect(sourceOf('delivered_to_lab')).toBe('courier');
    expect(sourceOf('completed')).toBe('lab');
    expect(sourceOf('requisition_created')).toBe('workflow');
    expect(sourceOf('cancelled')).toBe('workflow');
  });

  describe('sandbox simulation', () => {
    it('walks the registered kit success path', () => {
      expect(simulate('testkit', null, ['requisition_created', 'transit_customer'])).toEqual(SUCCESS_PATH.testkit);
    });

    it('walks the imported sample path: no shipping leg', () => {
      expect(simulate('imported_testkit', null, ['requisition_created'])).toEqual(SUCCESS_PATH.imported_testkit);
      expect(isStatusOf('imported_testkit', 'transit_customer')).toBe(false);
      expect(isCancellable('imported_testkit', 'requisition_created')).toBe(true);
      expect(isCancellable('imported_testkit', 'transit_lab')).toBe(false);
    });

    it('walks the registrable kit path, leaving registration to the customer', () => {
      const path = simulate('registrable_testkit', null, ['awaiting_registration', 'transit_customer']);
      expect(path.at(-1)).toBe('with_customer');
      expect(simulatedNext('registrable_testkit', 'with_customer', null)).toBeNull();
      expect(simulatedNext('registrable_testkit', 'requisition_created', null)).toBe('transit_lab');
    });

    it.each<[OrderLowLevelStatus, OrderLowLevelStatus]>([
      ['failure_to_deliver_to_customer', 'transit_customer'],
      ['lost', 'transit_customer'],
      ['problem_in_transit_customer', 'transit_customer'],
      ['failure_to_deliver_to_lab', 'transit_lab'],
      ['sample_error', 'delivered_to_lab'],
      ['do_not_process', 'delivered_to_lab'],
    ])('turns off the success path to reach %s (after %s)', (final, before) => {
      const path = simulate('testkit', final, ['requisition_created', 'transit_customer']);
      expect(path.slice(-2)).toEqual([before, final]);
      expect(simulationCanReach('testkit', 'ordered', final)).toBe(true);
    });

    it('stops at a non-terminal final status and refuses unreachable ones', () => {
      expect(simulate('testkit', 'with_customer', ['requisition_created', 'transit_customer']).at(-1)).toBe('with_customer');
      expect(simulatedNext('testkit', 'completed', null)).toBeNull();
      expect(simulationCanReach('testkit', 'transit_lab', 'failure_to_deliver_to_customer')).toBe(false);
      expect(simulationCanReach('testkit', 'ordered', 'cancelled')).toBe(true);
    });
  });

  it('refuses an on-site draw report unless the order is on-site, has its requisition and is not drawn', () => {
    expect(onSiteDrawRefusal('on_site_collection', 'requisition_created')).toBeNull();
    expect(onSiteDrawRefusal('on_site_collection', 'requisition_bypassed')).toBeNull();
    expect(onSiteDrawRefusal('on_site_collection', 'ordered')).toMatch(/has no requisition/);
    expect(onSiteDrawRefusal('on_site_collection', 'draw_completed')).toBe(
      'The sample has already been drawn: the order is sample_with_lab.on_site_collection.draw_completed.',
    );
    expect(onSiteDrawRefusal('on_site_collection', 'cancelled')).toBe('The order is cancelled.on_site_collection.cancelled.');
    expect(onSiteDrawRefusal('on_site_collection', 'requisition_created', { gone: true })).toMatch(/^The order is /);
    expect(onSiteDrawRefusal('walk_in_test', 'requisition_created')).toBe(
      'Only on-site collection orders report their draw this way; this is a walk_in_test order.',
    );
  });
});
