import { Injectable } from '@nestjs/common';
import { Hl7Repository } from '../../hl7/hl7.repository';
import { Hl7LabAdapter } from './hl7-lab.adapter';
import type { LabAdapter, LabCancellation, LabResults, Requisition, RequisitionRequest, ResultsRequest } from './lab.adapter';
import { SandboxLabAdapter } from './sandbox-lab.adapter';

/**
 * The lab adapter orders use: a lab account with an HL7 interface is reached over MLLP
 * (Hl7LabAdapter), every other account is the sandbox lab's.
 */
@Injectable()
export class LabRouter implements LabAdapter {
  private readonly sandbox = new SandboxLabAdapter();

  constructor(
    private readonly interfaces: Hl7Repository,
    private readonly hl7: Hl7LabAdapter,
  ) {}

  async submitRequisition(request: RequisitionRequest): Promise<Requisition> {
    const lab = await this.interfaces.interfaceOf(request.labAccountId);
    return lab ? this.hl7.submitRequisition(request, lab) : this.sandbox.submitRequisition(request);
  }

  async cancelRequisition(request: RequisitionRequest): Promise<LabCancellation> {
    const lab = await this.interfaces.interfaceOf(request.labAccountId);
    return lab ? this.hl7.cancelRequisition(request, lab) : this.sandbox.cancelRequisition();
  }

  async results(request: ResultsRequest): Promise<LabResults> {
    const lab = await this.interfaces.interfaceOf(request.labAccountId);
    return lab ? this.hl7.results(request, lab) : this.sandbox.results(request);
  }
}
