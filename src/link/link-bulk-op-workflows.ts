import { Inject, Injectable } from '@nestjs/common';
import type { Client } from '@temporalio/client';
import { type LinkBulkOpIdentity, type LinkBulkOpPace, linkBulkOpWorkflowId, SEARCH_ATTRIBUTES } from '../../workflows/contract';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { TEMPORAL_CLIENT } from '../core.tokens';

/** Starts `link-bulk-op:<id>` workflows, and waits for one to end. */
@Injectable()
export class LinkBulkOpWorkflows {
  constructor(
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(LABFLOW_CONFIG) private readonly config: Pick<LabflowConfig, 'temporal'>,
  ) {}

  async start(op: LinkBulkOpIdentity, pace: LinkBulkOpPace): Promise<void> {
    await this.temporal.workflow.start('linkBulkOpWorkflow', {
      workflowId: linkBulkOpWorkflowId(op.opId),
      taskQueue: this.config.temporal.taskQueue,
      args: [{ op, pace }],
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.teamId, value: op.teamId }],
    });
  }

  /** Whether the operation's workflow ended within `ms`. */
  async ended(opId: string, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([
        this.temporal.workflow
          .getHandle(linkBulkOpWorkflowId(opId))
          .result()
          .then(() => true),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
