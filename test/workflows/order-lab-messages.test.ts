import { labUpdate, labUpdates, orderWorkflowId } from '../../workflows/contract';
import { FakeActivities, orderInput, startWorkflowHarness, waitFor, writeFixtureHistories, type WorkflowHarness } from '../helpers/workflow-harness';

/**
 * Lab facts that come from a lab's messages (HL7: each names its stored message): the order
 * workflows take each message once, however often the listener hands it over, and a correction
 * that arrives while the order completes is applied to the stored results, not dropped.
 */
describe('order workflows: lab updates by message', () => {
  let harness: WorkflowHarness;
  let fakes: FakeActivities;
  /** `WORKFLOW_FIXTURES=1 npx jest <this file>` writes these histories to test/fixtures/histories/. */
  const fixtures: Record<string, string> = {};

  beforeAll(async () => {
    fakes = new FakeActivities();
    harness = await startWorkflowHarness(fakes);
  });

  afterAll(async () => {
    await writeFixtureHistories(harness.client, fixtures);
    await harness.close();
  });

  /** A production walk-in order (its lab's first fact ends the collecting stage), waiting for the lab. */
  async function walkInOrder(type: string) {
    const input = orderInput('walk_in_test', 'production');
    const handle = await harness.client.workflow.start(type, { workflowId: orderWorkflowId(input.orderId), taskQueue: harness.taskQueue, args: [input] });
    await waitFor(() => (fakes.statuses(input.orderId).includes('appointment_pending') ? true : undefined), 'the order to wait for its sample');
    return { orderId: input.orderId, handle };
  }

  it.each(['orderWorkflow', 'orderWorkflowV2'])('%s takes a message handed over twice once', async (type) => {
    const { orderId, handle } = await walkInOrder(type);
    fixtures[`order--${type === 'orderWorkflow' ? 'v1' : 'v2'}-lab-message-twice`] = handle.workflowId;
    // The listener signalled, stopped before marking the message handed over, and its sweep signalled again.
    await handle.signal(labUpdate, { low: 'partial_results', messageId: 'msg-1' });
    await handle.signal(labUpdate, { low: 'partial_results', messageId: 'msg-1' });
    await handle.signal(labUpdate, { low: 'partial_results', messageId: 'msg-2' });
    await handle.signal(labUpdate, { low: 'completed', messageId: 'msg-3' });
    expect(await handle.result()).toEqual({ status: 'completed.walk_in_test.completed' });
    expect(fakes.statuses(orderId)).toEqual(['requisition_created', 'appointment_pending', 'partial_results', 'partial_results', 'completed']);
  });

  it.each(['orderWorkflow', 'orderWorkflowV2'])('%s takes several messages in one labUpdates signal, in order, each once', async (type) => {
    const { orderId, handle } = await walkInOrder(type);
    fixtures[`order--${type === 'orderWorkflow' ? 'v1' : 'v2'}-lab-messages-batched`] = handle.workflowId;
    // The hand-off's batch for this order: one signal; a message of it handed over again in the next.
    await handle.signal(labUpdates, [
      { low: 'partial_results', messageId: 'msg-1' },
      { low: 'partial_results', messageId: 'msg-1' },
      { low: 'partial_results', messageId: 'msg-2' },
    ]);
    await handle.signal(labUpdates, [
      { low: 'partial_results', messageId: 'msg-2' },
      { low: 'completed', messageId: 'msg-3' },
    ]);
    expect(await handle.result()).toEqual({ status: 'completed.walk_in_test.completed' });
    expect(fakes.statuses(orderId)).toEqual(['requisition_created', 'appointment_pending', 'partial_results', 'partial_results', 'completed']);
    const signals = ((await handle.fetchHistory()).events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes);
    expect(signals.map((event) => event.workflowExecutionSignaledEventAttributes?.signalName)).toEqual(['labUpdates', 'labUpdates']);
  });

  it.each(['orderWorkflow', 'orderWorkflowV2'])('%s takes a partner report (same event id) signalled twice once', async (type) => {
    const { orderId, handle } = await walkInOrder(type);
    fixtures[`order--${type === 'orderWorkflow' ? 'v1' : 'v2'}-partner-report-twice`] = handle.workflowId;
    // The API signalled the lab's webhook and was killed before its receipt committed: the lab's resend signals again.
    await handle.signal(labUpdate, { low: 'partial_results', eventId: 'lab-evt-1' });
    await handle.signal(labUpdate, { low: 'partial_results', eventId: 'lab-evt-1' });
    // Another id with the same content follows the order's rules (partials may repeat).
    await handle.signal(labUpdate, { low: 'partial_results', eventId: 'lab-evt-2' });
    await handle.signal(labUpdate, { low: 'completed', interpretation: 'normal', eventId: 'lab-evt-3' });
    expect(await handle.result()).toEqual({ status: 'completed.walk_in_test.completed' });
    expect(fakes.statuses(orderId)).toEqual(['requisition_created', 'appointment_pending', 'partial_results', 'partial_results', 'completed']);
    const history = (await handle.fetchHistory()).events ?? [];
    expect(history.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'labUpdate')).toHaveLength(4);
  });

  it.each(['orderWorkflow', 'orderWorkflowV2'])('%s applies a correction that arrives while the order completes', async (type) => {
    const { orderId, handle } = await walkInOrder(type);
    fixtures[`order--${type === 'orderWorkflow' ? 'v1' : 'v2'}-lab-correction-while-completing`] = handle.workflowId;
    // The lab's correction reaches the run after the results were read for the completion.
    fakes.onCollectResults = async (collecting) => {
      if (collecting === orderId) await handle.signal(labUpdate, { low: 'completed', messageId: 'msg-corr', correction: true });
    };
    try {
      await handle.signal(labUpdate, { low: 'completed', messageId: 'msg-final' });
      expect(await handle.result()).toEqual({ status: 'completed.walk_in_test.completed' });
    } finally {
      fakes.onCollectResults = null;
    }
    expect(fakes.statuses(orderId)).toEqual(['requisition_created', 'appointment_pending', 'completed']);
    expect(fakes.corrections.filter((correction) => correction.orderId === orderId)).toEqual([{ orderId, reportId: 'msg-corr' }]);
  });
});
