import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  type ConnectionActivities,
  type ConnectionOutcome,
  type ConnectionProgress,
  type ConnectionState,
  type ConnectionWorkflowInput,
  connectionState,
  deregisterConnection,
  refreshConnection,
  type SyncConnectionResult,
} from '../contract';

const DAY_MS = 86_400_000;

/**
 * `connection:<user_id>:<provider>`: one connected data source. It announces the connection
 * (provider.connection.created), backfills `backfillDays` of history in steps of
 * `backfillChunkMs` (the last step's historical.data.* events end it), then syncs what is new
 * every `syncInterval` or when refreshed, until the user deregisters the provider or the
 * connection or user is gone. Every `syncsPerRun` syncs it continues as new, so a connection
 * that lives for years keeps a short history. A user pending deletion pauses it (nothing is
 * stored, the window is kept); an erased user ends it.
 */
export async function connectionWorkflow(input: ConnectionWorkflowInput): Promise<ConnectionOutcome> {
  const { schedule } = input;
  const { announceConnection, endConnection, syncConnection } = proxyActivities<ConnectionActivities>({
    startToCloseTimeout: schedule.syncTimeout,
    heartbeatTimeout: schedule.syncHeartbeatTimeout,
    retry: { initialInterval: schedule.syncRetryInterval, maximumInterval: '10 minutes' },
  });
  const progress: ConnectionProgress = input.progress ?? firstProgress(schedule.backfillDays);
  let phase: ConnectionState['phase'] = progress.announced ? 'connected' : 'announcing';
  let refreshRequested = input.refreshPending ?? false;
  let deregistered = false;
  setHandler(refreshConnection, () => {
    refreshRequested = true;
  });
  setHandler(deregisterConnection, () => {
    deregistered = true;
  });
  setHandler(connectionState, () => ({ phase, progress: { ...progress } }));

  const { connectionId } = input.connection;
  const end = async (found: ConnectionOutcome): Promise<ConnectionOutcome> => {
    // A sync that found the row gone while a deregistration was on its way: the deregistration.
    const outcome = deregistered ? 'deregistered' : found;
    // The API removed the row; this also removes one an announcement racing the removal wrote.
    if (outcome === 'deregistered') await endConnection({ connectionId });
    phase = 'ended';
    return outcome;
  };

  if (!progress.announced) {
    if ((await announceConnection(input.connection)) === 'gone') return end('gone');
    progress.announced = true;
  }

  while (progress.syncedUntil < progress.backfillTo) {
    if (deregistered) return end('deregistered');
    phase = 'backfilling';
    const from = progress.syncedUntil;
    const to = Math.min(from + schedule.backfillChunkMs, progress.backfillTo);
    const result = await syncConnection({
      connectionId,
      from,
      to,
      stage: 'historical',
      finalChunk: to === progress.backfillTo,
      backfill: { from: progress.backfillFrom, to: progress.backfillTo },
    });
    if (result.status === 'gone') return end('gone');
    // Paused (user pending deletion) or refused by the source (connection error): the same step
    // again after an interval.
    if (result.status === 'paused' || result.status === 'error') {
      if (result.status === 'error') phase = 'error';
      await condition(() => deregistered, schedule.syncInterval);
    } else progress.syncedUntil = to;
  }

  for (let syncs = 0; ;) {
    if (phase !== 'error') phase = 'connected';
    await condition(() => refreshRequested || deregistered, schedule.syncInterval);
    if (deregistered) return end('deregistered');
    refreshRequested = false;
    phase = 'syncing';
    const to = Date.now();
    const result: SyncConnectionResult = await syncConnection({ connectionId, from: progress.syncedUntil, to, stage: 'daily', finalChunk: false });
    if (result.status === 'gone') return end('gone');
    phase = result.status === 'error' ? 'error' : 'syncing';
    // Paused or in error: the window is kept, the next sync (timer or refresh) tries it again.
    if (result.status === 'synced') progress.syncedUntil = to;
    progress.syncs++;
    syncs++;
    if (syncs >= schedule.syncsPerRun || workflowInfo().continueAsNewSuggested) {
      // A deregistration or refresh signalled meanwhile is not lost across the new run.
      await condition(allHandlersFinished);
      if (deregistered) return end('deregistered');
      await continueAsNew<typeof connectionWorkflow>({ ...input, progress, refreshPending: refreshRequested });
    }
  }
}

/** The backfill window ends now (workflow time) and reaches backfillDays back. */
function firstProgress(backfillDays: number): ConnectionProgress {
  const now = Date.now();
  return { announced: false, backfillFrom: now - backfillDays * DAY_MS, backfillTo: now, syncedUntil: now - backfillDays * DAY_MS, syncs: 0 };
}
