import { Inject, Injectable } from '@nestjs/common';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type FhirExportWorkflowInput, fhirExportWorkflowId, SEARCH_ATTRIBUTES } from '../../../workflows/contract';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import { TEMPORAL_CLIENT } from '../../core.tokens';

/** Starts and cancels `fhir-export:<id>` workflows. */
@Injectable()
export class FhirExportWorkflows {
  constructor(
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(LABFLOW_CONFIG) private readonly config: Pick<LabflowConfig, 'temporal'>,
  ) {}

  async start(teamId: string, input: FhirExportWorkflowInput): Promise<void> {
    await this.temporal.workflow.start('fhirExportWorkflow', {
      workflowId: fhirExportWorkflowId(input.exportId),
      taskQueue: this.config.temporal.taskQueue,
      args: [input],
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.teamId, value: teamId }],
    });
  }

  /** Cancels the export's workflow; one already ended (or never started) is left as is. */
  async cancel(exportId: string): Promise<void> {
    try {
      await this.temporal.workflow.getHandle(fhirExportWorkflowId(exportId)).cancel();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
}
