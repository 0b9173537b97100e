import { Injectable } from '@nestjs/common';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Hl7Orders, Hl7Report } from '../hl7/hl7-orders';
import { labUpdate, labUpdates, type LabUpdate, resendLabOrder } from '../../workflows/contract';
import { OrderLabResults } from './order-lab-results';
import { OrderWorkflows } from './order-workflows';
import { type OrderSignalState, OrdersRepository } from './orders.repository';

/**
 * Orders as the HL7 listener (src/hl7) reaches them: whether a placer number is an order of the
 * lab account, and the lab's facts signalled to the order's workflow as partner lab webhooks are
 * (PartnerWebhooksService.lab). Also the resend ops ask for after a lab refused an order message.
 */
@Injectable()
export class OrderHl7Reports implements Hl7Orders {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly workflows: OrderWorkflows,
    private readonly results: OrderLabResults,
  ) {}

  async isOrderAt(orderId: string, labAccountId: string): Promise<boolean> {
    const order = await this.orders.findById(orderId);
    return order !== null && order.labAccountId === labAccountId;
  }

  /**
   * A correction for an order that completed goes to its stored results (OrderLabResults): its
   * workflow ended with the completion. Before that, the workflow takes it as the lab's
   * completion, and collects the results with the correction in them.
   */
  async report(orderId: string, report: Hl7Report): Promise<'accepted' | 'ignored'> {
    const order = await this.orders.findById(orderId);
    return order ? this.reportTo(order, report) : 'ignored';
  }

  /**
   * An order's messages of a batch in one signal (labUpdates; one message: labUpdate), the order
   * read once. An order whose results are stored already takes them one by one (`report`): its
   * corrections go to the stored results. A run that closed meanwhile takes none: its corrections
   * then go to the stored results too, in order.
   */
  async reportEach(orderId: string, reports: readonly Hl7Report[]): Promise<{ handed: string[]; error?: unknown }> {
    const handed: string[] = [];
    try {
      // Three columns: the hand-off reads each order of each batch; the whole order only to start its workflow.
      const order = await this.orders.signalStateOf(orderId);
      if (!order) return { handed: reports.map((report) => report.messageId) };
      if (OrderLabResults.isResulted(order) || reports.length === 1) {
        for (const report of reports) {
          await this.reportTo(order, report);
          handed.push(report.messageId);
        }
        return { handed };
      }
      await this.ensureStarted(order);
      const updates = reports.map((report) => this.updateOf(report));
      const signalled = await this.signalUnlessClosed(() => this.workflows.handle(order.id).signal(labUpdates, updates));
      for (const report of reports) {
        // The run completed the order between the read above and the signal.
        if (signalled === 'ignored' && this.corrects(report)) await this.correct(order.id, report.messageId);
        handed.push(report.messageId);
      }
      return { handed };
    } catch (error) {
      return { handed, error };
    }
  }

  private async reportTo(order: OrderSignalState, report: Hl7Report): Promise<'accepted' | 'ignored'> {
    const corrects = this.corrects(report);
    if (corrects && OrderLabResults.isResulted(order)) return this.correct(order.id, report.messageId);
    await this.ensureStarted(order);
    const signalled = await this.signalUnlessClosed(() => this.workflows.handle(order.id).signal(labUpdate, this.updateOf(report)));
    // The run completed the order between the read above and the signal.
    if (signalled === 'ignored' && corrects) return this.correct(order.id, report.messageId);
    return signalled;
  }

  /** Starts the order's workflow if it was not (reading the whole order for that); `order` then says it started. */
  private async ensureStarted(order: OrderSignalState): Promise<void> {
    if (order.workflowStartedAt) return;
    const whole = await this.orders.findById(order.id);
    if (!whole) return;
    await this.workflows.ensureStarted(whole);
    order.workflowStartedAt = whole.workflowStartedAt;
  }

  private corrects(report: Hl7Report): boolean {
    return report.correction && report.fact === 'completed';
  }

  private updateOf(report: Hl7Report): LabUpdate {
    return { low: report.fact, statusDetail: report.statusDetail, messageId: report.messageId, ...(this.corrects(report) ? { correction: true } : {}) };
  }

  private async correct(orderId: string, reportId: string): Promise<'accepted' | 'ignored'> {
    return (await this.results.correct(orderId, reportId)) === 'not_resulted' ? 'ignored' : 'accepted';
  }

  /** Signals the order's workflow to send its order message again; `ignored`: the workflow has closed. */
  async resend(orderId: string): Promise<'accepted' | 'ignored' | 'not_found'> {
    const order = await this.orders.findById(orderId);
    if (!order) return 'not_found';
    return this.signalUnlessClosed(() => this.workflows.handle(order.id).signal(resendLabOrder));
  }

  private async signalUnlessClosed(signal: () => Promise<void>): Promise<'accepted' | 'ignored'> {
    try {
      await signal();
      return 'accepted';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return 'ignored';
      throw error;
    }
  }
}
