import { Inject, Injectable } from '@nestjs/common';
import { Context } from '@temporalio/activity';
import { createHash } from 'node:crypto';
import { PhiCipher } from '../../common/crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import { readAck } from '../../hl7/ack';
import type { Hl7LabInterfaceEntity } from '../../hl7/hl7.entities';
import { hl7Metrics } from '../../hl7/hl7-metrics';
import { Hl7Repository } from '../../hl7/hl7.repository';
import { decodeInbound } from '../../hl7/inbound-message';
import { readReportedOrders } from '../../hl7/lab-report';
import { Hl7TransportError, sendAndAwaitAck } from '../../hl7/mllp-client';
import { mapObservations, type ReceivedReport } from '../../hl7/observation-results';
import { buildOrderMessage, type OrderMessageInput } from '../../hl7/order-message';
import { interpretResults } from '../../results';
import type { LabCancellation, LabResults, Requisition, RequisitionRequest, ResultsRequest } from './lab.adapter';

/**
 * A lab reached over HL7 v2 / MLLP: the order goes out as ORM^O01 or OML^O21 (the lab account's
 * interface) and the lab's ACK comes back on the connection; results arrive on their own through
 * labflow's listener (src/hl7), and `results` reads what was taken in for the order.
 *
 * The control id is the order's and the number of earlier refused sends: a retry after a lost
 * connection repeats the same control id (the lab sees a repeat, not a second order), a resend
 * ops asked for after an AE/AR is a new message.
 */
@Injectable()
export class Hl7LabAdapter {
  constructor(
    private readonly repository: Hl7Repository,
    private readonly cipher: PhiCipher,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async submitRequisition(request: RequisitionRequest, lab: Hl7LabInterfaceEntity): Promise<Requisition> {
    const refused = await this.repository.refusedOrderMessages(request.orderId);
    const controlId = controlIdOf(request.orderId, 'NW', refused);
    const ack = await this.send(request, lab, 'new', controlId, null);
    return { requisitionId: controlId, ack };
  }

  /**
   * ORC CA for an order the lab took: one message per order (a retry repeats its control id), naming
   * the lab's accession when its messages carried one. The lab's answer is recorded as the order's was.
   */
  async cancelRequisition(request: RequisitionRequest, lab: Hl7LabInterfaceEntity): Promise<LabCancellation> {
    const filler = await this.repository.fillerNumberOf(request.orderId);
    return { ack: await this.send(request, lab, 'cancel', controlIdOf(request.orderId, 'CA', 0), filler) };
  }

  /** Stores the message (sealed) before it goes out, sends it, waits for the ACK and records it. */
  private async send(request: RequisitionRequest, lab: Hl7LabInterfaceEntity, control: 'new' | 'cancel', controlId: string, filler: string | null) {
    const text = buildOrderMessage({ ...this.orderMessage(request, lab, controlId), control, fillerNumber: filler });
    const stored = await this.repository.recordOutbound({
      peerFacility: lab.receivingFacility,
      controlId,
      messageType: lab.orderMessageType,
      labAccountId: lab.labAccountId,
      orderId: request.orderId,
      bodyEnc: this.cipher.encrypt(text),
    });
    const sent = { hl7MessageType: lab.orderMessageType, hl7ControlId: controlId, lab: lab.receivingFacility };
    showInTemporal(sent);
    let reply;
    try {
      reply = await sendAndAwaitAck(lab, text, { connectTimeoutMs: 10_000, ackTimeoutMs: this.config.hl7.ackTimeoutMs });
    } catch (error) {
      // The attempt's failure, as the Temporal UI lists it, names the message it was sending.
      if (error instanceof Hl7TransportError) throw new Hl7TransportError(`${lab.orderMessageType} ${controlId}: ${error.message}`);
      throw error;
    }
    const ack = readAck(reply);
    const code = ack.ackCode ?? 'AR';
    const accepted = code === 'AA' || code === 'CA';
    await this.repository.recordAnswer(stored.id, {
      state: accepted ? 'accepted' : code === 'AE' || code === 'CE' ? 'error' : 'rejected',
      ackCode: code,
      ackText: ack.text || null,
    });
    hl7Metrics.message('out', lab.orderMessageType, code);
    return { code, text: ack.text, controlId };
  }

  async results(request: ResultsRequest, lab: Hl7LabInterfaceEntity): Promise<LabResults> {
    const reports: ReceivedReport[] = [];
    for (const row of await this.repository.inboundBodiesOf(request.orderId)) {
      const { message } = decodeInbound(Buffer.from(this.cipher.decrypt(row.bodyEnc), 'utf8'));
      for (const order of readReportedOrders(message)) reports.push({ resultStatus: order.resultStatus, observations: order.observations });
    }
    const mapped = mapObservations(reports, request.markers, lab.testCodes, { labName: request.labName, sampleId: request.sampleId });
    return { status: mapped.status, interpretation: interpretResults(mapped.results), results: mapped.results, missingResults: mapped.missingResults };
  }

  private orderMessage(request: RequisitionRequest, lab: Hl7LabInterfaceEntity, controlId: string): OrderMessageInput {
    const insurance = request.billingType === 'commercial_insurance' ? request.healthInsurance : null;
    const responsible = insurance?.responsible_details as
      | {
          first_name: string;
          last_name: string;
          phone_number: string;
          address: { first_line: string; city: string; state: string; zip: string; country: string };
        }
      | undefined;
    const patient = request.patient;
    return {
      control: 'new',
      controlId,
      sentAt: new Date(),
      addressing: lab,
      processingId: request.environment === 'production' ? 'P' : 'T',
      orderId: request.orderId,
      fillerNumber: null,
      patient: patient ?? { id: request.orderId, firstName: '', lastName: '', dob: '', gender: '', phone: null, address: null },
      physician: request.physician,
      tests: request.orderables.map((marker) => {
        const code = lab.testCodes[String(marker.id)];
        // A marker the lab account has no code for goes out under labflow's provider id, so the
        // lab's interface team sees which mapping is missing rather than a dropped test.
        return { markerId: marker.id, code: code?.code ?? marker.providerId, text: code?.text ?? marker.name };
      }),
      stat: request.priority,
      collectedAt: request.collectedAt,
      diagnoses: request.icdCodes,
      insurance: insurance
        ? {
            payorCode: typeof insurance.payor_code === 'string' ? insurance.payor_code : null,
            memberId: typeof insurance.insurance_id === 'string' ? insurance.insurance_id : null,
            relationship: typeof insurance.responsible_relationship === 'string' ? insurance.responsible_relationship : null,
            guarantor: responsible
              ? {
                  firstName: responsible.first_name,
                  lastName: responsible.last_name,
                  phone: responsible.phone_number ?? null,
                  address: {
                    firstLine: responsible.address.first_line,
                    city: responsible.address.city,
                    state: responsible.address.state,
                    zip: responsible.address.zip,
                    country: responsible.address.country,
                  },
                }
              : null,
          }
        : null,
      aoeAnswers: request.aoeAnswers.map((answer) => ({
        markerId: answer.marker_id,
        questionId: answer.question_id,
        question:
          request.orderables.find((marker) => marker.id === answer.marker_id)?.questions.find((question) => question.id === answer.question_id)?.text ?? null,
        answer: answer.answer,
      })),
      notes: request.clinicalNotes,
    };
  }
}

/**
 * What the Temporal UI shows of a send while it runs: the activity's heartbeat details (pending
 * activities), besides the control id in its result (labAck) and in a failed attempt's message.
 * Outside an activity (tests, the CLI) there is no one to show it to.
 */
function showInTemporal(details: Record<string, string>): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  context.heartbeat(details);
}

/** MSH-10 of an order message: the order's, the control code's and the resend's (20 characters, as 2.3 allows). */
export function controlIdOf(orderId: string, control: 'NW' | 'CA', resend: number): string {
  return `LF${createHash('sha256').update(`${orderId}:${control}:${resend}`).digest('hex').slice(0, 18).toUpperCase()}`;
}
