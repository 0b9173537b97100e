import { randomBytes } from 'node:crypto';
import { validationError } from '../common/errors';
import type { AoeQuestion, BillingType, LabAccountEntity } from '../lab-tests/lab-catalog.entities';
import type { OrderableLabTest } from '../lab-tests/orderable-lab-tests.service';
import type { OrderFlow, OrderLowLevelStatus } from '../../workflows/order/order-statuses';
import type { OrderEntity, Physician } from './order.entities';
import type { AoeAnswer, Base64Image, CreateOrderDto, HealthInsurance, PatientAddress, PatientDetails, ShippingAddress } from './orders.dto';

/* The pure parts of order creation (and recreation): what a new order is made of and the rules on a request's lab test. */
/** The lab test an order orders, as OrderCreationService.orderable resolves it. */
export type OrderedLabTest = Pick<OrderableLabTest, 'labTest' | 'lab' | 'markers'>;

/** Everything order creation writes for a new order (OrderCreationService.insert). */
export interface NewOrder {
  flow: OrderFlow;
  userId: string;
  orderable: OrderedLabTest;
  account: LabAccountEntity;
  /** Statuses of the first events, in order (the last one is the order's status). */
  initial: OrderLowLevelStatus[];
  sampleId: string;
  patientDetails: PatientDetails | null;
  patientAddress: PatientAddress | null;
  shippingDetails: ShippingAddress | null;
  physician: Physician | null;
  clinicalNotes: string | null;
  priority: boolean;
  billingType: BillingType | null;
  icdCodes: string[] | null;
  consents: Array<Record<string, unknown>> | null;
  activateBy: string | null;
  passthrough: string | null;
  /** The health insurance the order is billed to (`health_insurance`); null: none given. */
  healthInsurance: HealthInsurance | null;
  /** AoE answers and the physician's signature (order_requisition_inputs); null: neither given. */
  requisitionInputs: RequisitionInputs | null;
}

/** What an order's requisition carries beyond the order row (order_requisition_inputs), as stored. */
export interface RequisitionInputs {
  /**
   * Each answer with the name of its marker and the question as the lab test had them when
   * ordered (`question`: absent in rows stored before questions were kept).
   */
  aoe_answers: Array<AoeAnswer & { marker_name: string; question?: string }>;
  physician_signature: Base64Image | null;
}

/**
 * The requisition inputs of a new order, or null when it has none. An answer must be about a
 * marker of the ordered test, to one of the questions that marker asks (its `aoe`), in the form
 * the question takes (a choice's code or value, a number in its range); every required question
 * of the ordered markers must be answered. Each refusal is a 422 naming the field.
 */
export function requisitionInputsOf(
  markers: OrderedLabTest['markers'],
  aoeAnswers: AoeAnswer[] | null | undefined,
  physicianSignature: Base64Image | null | undefined,
): RequisitionInputs | null {
  const byId = new Map(markers.map((marker) => [marker.id, marker]));
  const answers = (aoeAnswers ?? []).map((answer, index) => {
    const marker = byId.get(answer.marker_id);
    if (marker === undefined) {
      throw validationError(
        ['body', 'aoe_answers', index, 'marker_id'],
        `Marker ${answer.marker_id} is not a marker of the ordered lab test.`,
        answer.marker_id,
      );
    }
    const questions = marker.aoeQuestions ?? [];
    const question = questions.find((candidate) => candidate.id === answer.question_id);
    if (!question) {
      const asked = questions.length > 0 ? `its questions are ${questions.map((candidate) => candidate.id).join(', ')}` : 'it asks none';
      throw validationError(
        ['body', 'aoe_answers', index, 'question_id'],
        `Marker ${marker.id} (${marker.name}) has no question ${answer.question_id}: ${asked}.`,
        answer.question_id,
      );
    }
    const refusal = aoeAnswerRefusal(question, answer.answer);
    if (refusal) throw validationError(['body', 'aoe_answers', index, 'answer'], refusal, answer.answer);
    return { ...answer, marker_name: marker.name, question: question.value };
  });
  const unanswered = markers.flatMap((marker) =>
    (marker.aoeQuestions ?? [])
      .filter((question) => question.required && !answers.some((answer) => answer.marker_id === marker.id && answer.question_id === question.id))
      .map((question) => `${marker.name}: ${question.id} (${question.value})`),
  );
  if (unanswered.length > 0) throw validationError(['body', 'aoe_answers'], `Required questions not answered: ${unanswered.join('; ')}.`, aoeAnswers ?? null);
  if (answers.length === 0 && !physicianSignature) return null;
  return { aoe_answers: answers, physician_signature: physicianSignature ?? null };
}

/** Why `answer` does not answer `question` (null: it does). */
function aoeAnswerRefusal(question: AoeQuestion, answer: string): string | null {
  const choices = question.answers.map((choice) => choice.code);
  const isChoice = (given: string) =>
    question.answers.some((choice) => [choice.code, choice.value].some((text) => text.toLowerCase() === given.trim().toLowerCase()));
  switch (question.type) {
    case 'choice':
      return isChoice(answer) ? null : `Answer one of ${choices.join(', ')} (or their values) to question ${question.id}.`;
    case 'multi_choice':
      return answer.split(',').every(isChoice) ? null : `Answer question ${question.id} with comma-separated choices among ${choices.join(', ')}.`;
    case 'numeric': {
      const value = Number(answer);
      const [min, max] = (question.constraint ?? '').split('-').map(Number);
      if (!Number.isFinite(value)) return `Answer question ${question.id} with a number.`;
      if (question.constraint && (value < min || value > max)) return `Answer question ${question.id} with a number from ${min} to ${max}.`;
      return null;
    }
    case 'text':
      return null;
  }
}

/**
 * The one lab test of the order: `lab_test_id`, or an order set of exactly one test. Both may be
 * given when they agree; an order set naming another test, or add-on markers, is refused rather
 * than left out of the order.
 */
export function singleLabTestId(body: Pick<CreateOrderDto, 'lab_test_id' | 'order_set'>): string {
  const ids = body.order_set?.lab_test_ids ?? [];
  const addOns = (body.order_set?.add_on?.marker_ids?.length ?? 0) + (body.order_set?.add_on?.provider_ids?.length ?? 0);
  if (addOns > 0) throw validationError(['body', 'order_set', 'add_on'], 'This labflow version orders no add-on markers.', body.order_set?.add_on);
  if (body.lab_test_id) {
    if (ids.some((id) => id !== body.lab_test_id)) {
      throw validationError(['body', 'order_set', 'lab_test_ids'], 'order_set.lab_test_ids names another lab test than lab_test_id: give one of them.', ids);
    }
    return body.lab_test_id;
  }
  if (!body.order_set) throw validationError(['body', 'lab_test_id'], 'Give lab_test_id or order_set.', null, 'missing');
  if (ids.length !== 1) {
    throw validationError(['body', 'order_set'], 'This labflow version orders exactly one lab test per order (no add-on markers).', body.order_set);
  }
  return ids[0];
}

/** The lab account asked for: `lab_account_id` or `order_set.lab_account_id`; both only when they agree. */
export function requestedLabAccountId(body: { lab_account_id?: string | null; order_set?: { lab_account_id?: string | null } | null }): string | undefined {
  const top = body.lab_account_id ?? undefined;
  const inSet = body.order_set?.lab_account_id ?? undefined;
  if (top !== undefined && inSet !== undefined && top !== inSet) {
    throw validationError(
      ['body', 'order_set', 'lab_account_id'],
      'order_set.lab_account_id names another lab account than lab_account_id: give one of them.',
      inSet,
    );
  }
  return top ?? inSet;
}

/** The lab test's collection method, if it is the requested one and orderable through this route. */
export function checkCollectionMethod<M extends string>(
  orderable: OrderedLabTest,
  requested: string | null,
  loc: Array<string | number> = ['body', 'collection_method'],
  allowed: readonly M[] = ['testkit'] as unknown as readonly M[],
): M {
  const method = orderable.labTest.method;
  if (requested && requested !== method) {
    throw validationError(loc, `Lab test ${orderable.labTest.id} is collected by ${method}, not ${requested}.`, requested);
  }
  if (!(allowed as readonly string[]).includes(method)) {
    throw validationError(loc, `${method} lab tests cannot be ordered through this route; ${allowed.join(', ')} can.`, method);
  }
  return method as M;
}

/** The only item of a list of exactly one. */
export function onlyItem<T>(items: T[] | null | undefined): T | null {
  return items?.length === 1 ? items[0] : null;
}

/** Collection methods `POST /v3/order` creates orders for: all of them. */
export const ORDERABLE_METHODS = ['testkit', 'walk_in_test', 'at_home_phlebotomy', 'on_site_collection'] as const;

/** A kit's sample id, printed on the kit: `LF` and 10 characters. */
export function newSampleId(): string {
  const alphabet = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';
  return `LF${[...randomBytes(10)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

export function toPhysician(physician: NonNullable<CreateOrderDto['physician']>): Physician {
  return {
    first_name: physician.first_name,
    last_name: physician.last_name,
    npi: physician.npi,
    email: physician.email ?? null,
    licensed_states: physician.licensed_states ?? null,
  };
}

/** What a new order (created or recreated) has not reached yet: no results, requisition, shipment or workflow. */
export function freshOrderState(now: Date) {
  return {
    pendingRegistrationEnc: null,
    interpretation: null,
    hasMissingResults: null,
    requisitionFormUrl: null,
    shipment: null,
    workflowStartedAt: null,
    notesEnc: null,
    createdAt: now,
    updatedAt: now,
  } satisfies Partial<OrderEntity>;
}
