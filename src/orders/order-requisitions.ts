import { Injectable } from '@nestjs/common';
import { PhiCipher } from '../common/crypto';
import { type RequisitionOrder, RequisitionOrders, type RequisitionReader } from '../requisitions/requisition-orders';
import { consentsOf, OrderTransitionsService } from './order-transitions.service';
import { OrderViews } from './order-views';
import type { RequisitionInsurance } from '../requisitions/requisition.types';
import type { RequisitionInputs } from './new-order';
import type { HealthInsurance, PatientAddress, PatientDetails } from './orders.dto';
import { clinicalNotesOf, icdCodesOf } from './order.entities';
import { OrdersRepository } from './orders.repository';

/** The orders module's side of requisition forms (RequisitionOrders): an order as its form prints it. */
@Injectable()
export class OrderRequisitions extends RequisitionOrders {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly views: OrderViews,
    private readonly transitions: OrderTransitionsService,
    private readonly cipher: PhiCipher,
  ) {
    super();
  }

  async find(reader: RequisitionReader, orderId: string): Promise<RequisitionOrder | null> {
    const order = await this.orders.findScoped(reader, orderId);
    if (!order) return null;
    const details = order.patientDetailsEnc ? this.cipher.decryptJson<PatientDetails>(order.patientDetailsEnc) : null;
    const address = order.patientAddressEnc ? this.cipher.decryptJson<PatientAddress>(order.patientAddressEnc) : null;
    const insurance = await this.orders.healthInsuranceOf(order);
    const sealedInputs = await this.orders.requisitionInputsOf(order.id);
    const inputs = sealedInputs === null ? null : this.cipher.decryptJson<RequisitionInputs>(sealedInputs);
    return {
      id: order.id,
      createdAt: order.createdAt,
      labId: order.labId,
      labAccountId: order.labAccountId,
      sampleId: order.sampleId,
      requisitionCreated: Boolean(order.requisitionFormUrl),
      patient:
        details && address
          ? {
              firstName: details.first_name,
              lastName: details.last_name,
              dob: details.dob,
              gender: details.gender,
              phoneNumber: details.phone_number,
              email: details.email,
              address: {
                firstLine: address.first_line,
                secondLine: address.second_line ?? null,
                city: address.city,
                state: address.state,
                zip: address.zip,
                country: address.country,
              },
            }
          : null,
      physician: order.physician ? { firstName: order.physician.first_name, lastName: order.physician.last_name, npi: order.physician.npi } : null,
      clinicalNotes: clinicalNotesOf(order, this.cipher),
      icdCodes: icdCodesOf(order, this.cipher) ?? [],
      billing: {
        type: order.billingType ?? 'client_bill',
        insurance: insurance === null ? null : requisitionInsurance(this.cipher.decryptJson<HealthInsurance>(insurance)),
      },
      priority: order.priority,
      aoeAnswers: (inputs?.aoe_answers ?? []).map((answer) => ({
        markerName: answer.marker_name,
        questionId: answer.question_id,
        question: answer.question ?? null,
        answer: answer.answer,
      })),
      physicianSignature: inputs?.physician_signature ? Buffer.from(inputs.physician_signature.content, 'base64') : null,
      consents: consentsOf(order),
      tests: async () => {
        const view = await this.views.one(order);
        const biomarkers = await this.transitions.biomarkersOf(order);
        return [{ name: view.lab_test.name, markers: biomarkers.map((marker) => ({ name: marker.name, loinc: marker.loinc?.code ?? null })) }];
      },
    };
  }

  async ownerOf(orderId: string) {
    const order = await this.orders.findById(orderId);
    return order ? { teamId: order.teamId, environment: order.environment } : null;
  }

  async logRead(reader: RequisitionReader, orderId: string): Promise<void> {
    await this.orders.logPhiAccess({ teamId: reader.teamId, apiKeyId: reader.apiKeyId }, 'read', [orderId]);
  }
}

/** What a requisition prints of a health insurance: who pays and for what; not the card images or the clinical notes. */
function requisitionInsurance(insurance: HealthInsurance): RequisitionInsurance {
  const responsible = insurance.responsible_details;
  return {
    payorCode: insurance.payor_code ?? null,
    memberId: insurance.insurance_id ?? null,
    responsibleRelationship: insurance.responsible_relationship ?? null,
    responsibleName: responsible ? `${responsible.first_name} ${responsible.last_name}` : null,
    diagnosisCodes: insurance.diagnosis_codes ?? [],
  };
}
