import { Inject, Injectable } from '@nestjs/common';
import { type Client, WorkflowIdConflictPolicy, WorkflowNotFoundError } from '@temporalio/client';
import {
  type ConnectionIdentity,
  connectionWorkflowId,
  deregisterConnection,
  refreshConnection,
  SEARCH_ATTRIBUTES,
} from '../../workflows/contract';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { TEMPORAL_CLIENT } from '../core.tokens';

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
    await this.temporal.workflow.start('connectionWorkflow', {
      workflowId: connectionWorkflowId(connection.userId, connection.provider),
      taskQueue: this.config.temporal.taskQueue,
      args: [{ connection, schedule: this.config.connections }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.TERMINATE_EXISTING,
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
