/**
 * Test-only workflow for test/workflows/events.test.ts (bundled by that test, not part of the
 * production bundle): emits events through the emitEvents activity, the way order and lab-report
 * workflows do — with an idempotency key derived from the workflow id and the step, or none
 * (the activity then derives one from the workflow run and activity id).
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { EventActivities, NewEvent } from '../../workflows/contract';

const { emitEvents } = proxyActivities<EventActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '50ms', backoffCoefficient: 1, maximumAttempts: 5 },
});

export async function emitEventsWorkflow(input: { events: NewEvent[]; keyed: boolean }): Promise<string[]> {
  const { workflowId } = workflowInfo();
  const events = input.keyed ? input.events.map((event, index) => ({ ...event, idempotencyKey: `${workflowId}:results-received:${index}` })) : input.events;
  const { eventIds } = await emitEvents({ events });
  return eventIds;
}
