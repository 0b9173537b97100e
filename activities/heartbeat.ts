import { Context } from '@temporalio/activity';

/**
 * Runs `work`, heartbeating every third of the activity's heartbeat timeout while it runs. A live
 * worker keeps beating even through a long step (OCR off the event loop, a bulk step of many
 * users), so a step is retried soon after its worker dies rather than after its whole
 * startToClose; with no heartbeat timeout set, nothing is sent.
 */
export async function whileBeating<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timeoutMs = context.info.heartbeatTimeoutMs;
  if (!timeoutMs) return work();
  const beat = setInterval(() => context.heartbeat(), Math.max(200, Math.floor(timeoutMs / 3)));
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}
