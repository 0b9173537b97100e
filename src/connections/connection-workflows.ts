import { Inject, Injectable } from '@nestjs/common';
import { type Client, WorkflowIdConflictPolicy, WorkflowNotFoundError } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  type ConnectionIdentity,
  type ConnectionWorkflowInput,
  connectionWorkflowId,
  deregisterConnection,
  refreshConnection,
  SEARCH_ATTRIBUTES,
} from '../../workflows/contract';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { TEMPORAL_CLIENT } from '../core.tokens';
import { labflowDataConverter } from '../temporal/payload-codec';

/** Starts and signals `connection:<user_id>:<provider>` workflows. */
@Injectable()
export class ConnectionWorkflows {
  constructor(
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /**
   * Starts the connection's workflow. A workflow still running under the same id belongs to an
   * earlier connection of the pair that was deregistered (its row is gone; the caller just wrote
   * the new one), so it is ended in favour of the new one.
   */
  async start(connection: ConnectionIdentity): Promise<void> {
    await this.startRun(connection, WorkflowIdConflictPolicy.TERMINATE_EXISTING);
  }

  /**
   * A new run for a connection whose workflow closed or vanished while its row remains
   * (ConnectionReconciler), with the input `start` gives; returns its run id. Unlike `start` it
   * never ends a running workflow: one that runs (started meanwhile) is left alone, and the start
   * throws WorkflowExecutionAlreadyStartedError.
   */
  async restart(connection: ConnectionIdentity): Promise<string> {
    const handle = await this.startRun(connection, WorkflowIdConflictPolicy.FAIL);
    return handle.firstExecutionRunId;
  }

  /** Describes the connection's latest workflow run (WorkflowNotFoundError when Temporal has none). */
  describe(userId: string, provider: string) {
    return this.handle(userId, provider).describe();
  }

  /**
   * The connection id run `runId` of the connection's workflow was started with (its first
   * history event's input, decoded as this client encodes it), or null when it cannot be read.
   */
  async connectionIdOf(userId: string, provider: string, runId: string): Promise<string | null> {
    const { history } = await this.temporal.workflowService.getWorkflowExecutionHistory({
      namespace: this.config.temporal.namespace,
      execution: { workflowId: connectionWorkflowId(userId, provider), runId },
      maximumPageSize: 1,
    });
    const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    if (!payload) return null;
    let decoded = [payload as Payload];
    for (const codec of [...labflowDataConverter(this.config).payloadCodecs].reverse()) decoded = await codec.decode(decoded);
    return defaultPayloadConverter.fromPayload<ConnectionWorkflowInput>(decoded[0])?.connection?.connectionId ?? null;
  }

  private startRun(connection: ConnectionIdentity, workflowIdConflictPolicy: WorkflowIdConflictPolicy) {
    return this.temporal.workflow.start('connectionWorkflow', {
      workflowId: connectionWorkflowId(connection.userId, connection.provider),
      taskQueue: this.config.temporal.taskQueue,
      args: [
        {
          connection,
          schedule: {
            ...this.config.connections,
            syncInterval: this.config.connectionSyncIntervals[connection.provider] ?? this.config.connections.syncInterval,
          },
        },
      ],
      workflowIdConflictPolicy,
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.teamId, value: connection.teamId }],
    });
  }

  /** Asks the connection to sync now; false when its workflow is not running. */
  refresh(userId: string, provider: string): Promise<boolean> {
    return this.signal(() => this.handle(userId, provider).signal(refreshConnection));
  }

  /** Ends the connection's workflow; false when it was not running. */
  deregister(userId: string, provider: string): Promise<boolean> {
    return this.signal(() => this.handle(userId, provider).signal(deregisterConnection));
  }

  private handle(userId: string, provider: string) {
    return this.temporal.workflow.getHandle(connectionWorkflowId(userId, provider));
  }

  private async signal(send: () => Promise<void>): Promise<boolean> {
    try {
      await send();
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }
}
