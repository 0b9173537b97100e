import { field, formatDateTime, keepTogether, pageFooters, paragraph, PDF_BOLD, PDF_FONT, PDF_MARGIN, pdfSafe, renderPdf, section } from '../common/pdf';
import { drawCode128 } from './barcode-pdf';
import { requisitionComment } from './requisition-comment';
import { NETWORK_PHYSICIAN, type RequisitionInput } from './requisition.types';

export { requisitionComment } from './requisition-comment';
export { NETWORK_PHYSICIAN } from './requisition.types';
export type { RequisitionInput } from './requisition.types';

const MARGIN = PDF_MARGIN;
const FONT = PDF_FONT;
const BOLD = PDF_BOLD;
const BARCODE_HEIGHT = 40;

/**
 * Renders a lab requisition (src/common/pdf.ts: US Letter, standard Helvetica): header with lab,
 * account and a Code 128 barcode of the sample id (the order id when there is no sample id yet),
 * patient block, ordering physician with NPI, tests with their markers' LOINC codes, ICD-10
 * codes, and the clinical comment (account default + order comment, see requisitionComment).
 * Long comments wrap and flow onto further pages; every page carries the order id and page count.
 *
 * Deterministic: the PDF's dates (and so its file id) come from input.createdAt, so the same
 * input yields the same bytes.
 */
export function renderRequisitionPdf(input: RequisitionInput): Promise<Buffer> {
  return renderPdf(
    { title: `Lab requisition ${input.orderId}`, author: input.lab.name, subject: 'Laboratory test requisition', date: input.createdAt },
    (doc) => layout(doc, input),
  );
}

function layout(doc: PDFKit.PDFDocument, input: RequisitionInput): void {
  const width = doc.page.width - MARGIN * 2;

  // Header: title, lab and account on the left; order id, date, barcode below.
  doc.font(BOLD).fontSize(18).text('LABORATORY REQUISITION', { width });
  doc.moveDown(0.3);
  field(doc, 'Laboratory', `${input.lab.name} (${input.lab.slug})`);
  field(doc, 'Lab account', `${input.account.accountName} - ${input.account.id}`);
  field(doc, 'Order ID', input.orderId);
  field(doc, 'Sample ID', input.sampleId ?? 'not assigned');
  field(doc, 'Order date', formatDateTime(input.createdAt));
  field(doc, 'Priority', input.priority ? 'STAT' : 'Routine');
  doc.moveDown(0.5);
  barcode(doc, input.sampleId ?? input.orderId, width);

  section(doc, 'PATIENT');
  const patient = input.patient;
  field(doc, 'Name', `${patient.firstName} ${patient.lastName}`);
  field(doc, 'Date of birth', patient.dob);
  field(doc, 'Sex', patient.gender);
  field(doc, 'Phone', patient.phoneNumber);
  field(doc, 'Email', patient.email);
  const address = patient.address;
  const street = [address.firstLine, address.secondLine].filter((line) => line && line.trim()).join(', ');
  field(doc, 'Address', `${street}, ${address.city}, ${address.state} ${address.zip}, ${address.country}`);

  section(doc, 'ORDERING PHYSICIAN');
  if (input.physician) {
    field(doc, 'Name', `${input.physician.firstName} ${input.physician.lastName}`);
    field(doc, 'NPI', input.physician.npi);
    if (input.physicianSignature) signature(doc, input.physicianSignature);
  } else {
    field(doc, 'Name', NETWORK_PHYSICIAN);
  }

  section(doc, 'TESTS ORDERED');
  input.tests.forEach((test, index) => {
    keepTogether(doc, 2 * doc.currentLineHeight(true));
    doc
      .font(BOLD)
      .fontSize(10)
      .text(`${index + 1}. ${pdfSafe(test.name)}`, MARGIN, doc.y, { width });
    for (const marker of test.markers) {
      doc.font(FONT).fontSize(9);
      keepTogether(doc, doc.currentLineHeight(true));
      const y = doc.y;
      doc.text(pdfSafe(marker.name), MARGIN + 16, y, { width: width - 16 - 120 });
      const afterName = doc.y;
      doc.text(marker.loinc ? `LOINC ${marker.loinc}` : 'LOINC n/a', MARGIN + width - 110, y, { width: 110, align: 'right' });
      doc.x = MARGIN;
      doc.y = Math.max(afterName, doc.y);
    }
    doc.moveDown(0.3);
  });

  if (input.aoeAnswers.length > 0) {
    section(doc, 'ASK AT ORDER ENTRY');
    for (const answer of input.aoeAnswers) field(doc, `${answer.markerName}, ${answer.question ?? `question ${answer.questionId}`}`, answer.answer);
  }

  if (input.consents.length > 0) {
    section(doc, 'PATIENT CONSENTS');
    for (const given of input.consents) {
      const when =
        given.timeOfConsent && !Number.isNaN(Date.parse(given.timeOfConsent)) ? `given ${formatDateTime(new Date(given.timeOfConsent))}` : 'time not given';
      field(doc, CONSENT_NAMES[given.consentType] ?? given.consentType, [given.version ? `version ${given.version}` : null, when].filter(Boolean).join(', '));
    }
  }

  section(doc, 'DIAGNOSIS CODES (ICD-10)');
  paragraph(doc, input.icdCodes.length > 0 ? input.icdCodes.join(', ') : 'None provided');

  section(doc, 'CLINICAL COMMENT');
  paragraph(doc, requisitionComment(input.clinicalNotes, input.account.defaultClinicalNotes) ?? 'None');

  section(doc, 'BILLING');
  field(doc, 'Bill to', BILLING_NAMES[input.billing.type] ?? input.billing.type);
  const insurance = input.billing.insurance;
  if (insurance) {
    field(doc, 'Payor code', insurance.payorCode ?? 'not given');
    field(doc, 'Member ID', insurance.memberId ?? 'not given');
    field(doc, 'Responsible party', [insurance.responsibleRelationship ?? 'not given', insurance.responsibleName].filter(Boolean).join(', '));
    if (insurance.diagnosisCodes.length > 0) field(doc, 'Insurance diagnosis codes', insurance.diagnosisCodes.join(', '));
  }

  pageFooters(doc, (page, pages) => `labflow requisition - Order ${input.orderId} - Page ${page} of ${pages}`);
}

/**
 * The physician's signature image, at most 180 × 48 points. The API checked its first bytes; an
 * image PDFKit still cannot read is named instead, so a bad image never fails the form.
 */
function signature(doc: PDFKit.PDFDocument, image: Buffer): void {
  keepTogether(doc, 56);
  doc.font(BOLD).fontSize(10).fillColor('black').text('Signature:', MARGIN, doc.y);
  const y = doc.y + 2;
  try {
    doc.image(image, MARGIN, y, { fit: [180, 48] });
    doc.y = y + 50;
  } catch {
    doc.font(FONT).text('(signature image on file could not be drawn)', MARGIN, y);
  }
  doc.x = MARGIN;
}

/** Junction's consent types as the form prints them. */
const CONSENT_NAMES: Record<string, string> = {
  'terms-of-use': 'Terms of use',
  'telehealth-informed-consent': 'Telehealth informed consent',
  'mobile-terms-and-conditions': 'Mobile terms and conditions',
  'notice-of-privacy-practices': 'Notice of privacy practices',
  'privacy-policy': 'Privacy policy',
  'hipaa-authorization': 'HIPAA authorization',
};

/** billing_type as the form prints it. */
const BILLING_NAMES: Record<string, string> = {
  client_bill: 'Client (the ordering organisation)',
  commercial_insurance: 'Commercial insurance',
  patient_bill: 'Patient',
  patient_bill_passthrough: 'Patient (passthrough)',
};

/** A Code 128 symbol of `text` with the human-readable text under it. */
function barcode(doc: PDFKit.PDFDocument, text: string, width: number): void {
  doc.y = drawCode128(doc, text, { x: MARGIN, y: doc.y, maxWidth: width, height: BARCODE_HEIGHT, maxModule: 1.25, fontSize: 9 }) + 1;
  doc.x = MARGIN;
}
