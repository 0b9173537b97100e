import PDFDocument from 'pdfkit';
import { code128BWidths, CODE128_QUIET_ZONE } from './code128';
import { requisitionComment } from './requisition-comment';
import { NETWORK_PHYSICIAN, type RequisitionInput } from './requisition.types';

export { requisitionComment } from './requisition-comment';
export { NETWORK_PHYSICIAN } from './requisition.types';
export type { RequisitionInput } from './requisition.types';

const MARGIN = 50;
const FONT = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const BARCODE_HEIGHT = 40;
const GREY = '#555555';

/**
 * Renders a lab requisition (US Letter, standard Helvetica, no embedded fonts): header with lab,
 * account and a Code 128 barcode of the sample id (the order id when there is no sample id yet),
 * patient block, ordering physician with NPI, tests with their markers' LOINC codes, ICD-10
 * codes, and the clinical comment (account default + order comment, see requisitionComment).
 * Long comments wrap and flow onto further pages; every page carries the order id and page count.
 *
 * Deterministic: the PDF's creation and modification dates (and so its file id) come from
 * input.createdAt, so the same input yields the same bytes.
 */
export function renderRequisitionPdf(input: RequisitionInput): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'LETTER',
      margins: { top: MARGIN, bottom: MARGIN + 20, left: MARGIN, right: MARGIN },
      bufferPages: true,
      info: {
        Title: `Lab requisition ${input.orderId}`,
        Author: input.lab.name,
        Subject: 'Laboratory test requisition',
        Creator: 'labflow',
        Producer: 'labflow',
        CreationDate: input.createdAt,
        ModDate: input.createdAt,
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    try {
      layout(doc, input);
      doc.end();
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
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
    doc.font(BOLD).fontSize(10).text(`${index + 1}. ${safe(test.name)}`, MARGIN, doc.y, { width });
    for (const marker of test.markers) {
      doc.font(FONT).fontSize(9);
      keepTogether(doc, doc.currentLineHeight(true));
      const y = doc.y;
      doc.text(safe(marker.name), MARGIN + 16, y, { width: width - 16 - 120 });
      const afterName = doc.y;
      doc.text(marker.loinc ? `LOINC ${marker.loinc}` : 'LOINC n/a', MARGIN + width - 110, y, { width: 110, align: 'right' });
      doc.x = MARGIN;
      doc.y = Math.max(afterName, doc.y);
    }
    doc.moveDown(0.3);
  });

  if (input.aoeAnswers.length > 0) {
    section(doc, 'ASK AT ORDER ENTRY');
    for (const answer of input.aoeAnswers) field(doc, `${answer.markerName}, question ${answer.questionId}`, answer.answer);
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

  footers(doc, input.orderId);
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

/** billing_type as the form prints it. */
const BILLING_NAMES: Record<string, string> = {
  client_bill: 'Client (the ordering organisation)',
  commercial_insurance: 'Commercial insurance',
  patient_bill: 'Patient',
  patient_bill_passthrough: 'Patient (passthrough)',
};

/** A section heading with a rule under it; starts a new page rather than orphaning the heading. */
function section(doc: PDFKit.PDFDocument, title: string): void {
  doc.moveDown(0.8);
  keepTogether(doc, 40);
  const width = doc.page.width - MARGIN * 2;
  doc.font(BOLD).fontSize(11).fillColor('black').text(title, MARGIN, doc.y, { width });
  const y = doc.y + 1;
  doc.moveTo(MARGIN, y).lineTo(MARGIN + width, y).lineWidth(0.5).strokeColor(GREY).stroke();
  doc.y = y + 4;
}

function field(doc: PDFKit.PDFDocument, label: string, value: string): void {
  const width = doc.page.width - MARGIN * 2;
  doc.font(BOLD).fontSize(10).fillColor('black').text(`${label}: `, MARGIN, doc.y, { width, continued: true });
  doc.font(FONT).text(safe(value));
}

function paragraph(doc: PDFKit.PDFDocument, text: string): void {
  const width = doc.page.width - MARGIN * 2;
  doc.font(FONT).fontSize(10).fillColor('black').text(safe(text), MARGIN, doc.y, { width, lineGap: 1 });
}

/** Adds a page when fewer than `height` points are left on this one. */
function keepTogether(doc: PDFKit.PDFDocument, height: number): void {
  if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage();
}

/** A Code 128 symbol of `text` with the human-readable text under it. */
function barcode(doc: PDFKit.PDFDocument, text: string, width: number): void {
  const widths = code128BWidths(text);
  const modules = widths.reduce((sum, w) => sum + w, 0) + 2 * CODE128_QUIET_ZONE;
  const module = Math.min(1.25, width / modules);
  const top = doc.y;
  let x = MARGIN + CODE128_QUIET_ZONE * module;
  widths.forEach((w, index) => {
    if (index % 2 === 0) doc.rect(x, top, w * module, BARCODE_HEIGHT).fill('black');
    x += w * module;
  });
  doc.font('Courier').fontSize(9).fillColor('black');
  doc.text(text, MARGIN, top + BARCODE_HEIGHT + 3, { width: modules * module, align: 'center' });
}

/** "Order <id> - Page i of n" at the foot of every page. */
function footers(doc: PDFKit.PDFDocument, orderId: string): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i += 1) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing inside the margin must not start a new page
    doc.font(FONT).fontSize(8).fillColor(GREY);
    doc.text(`labflow requisition - Order ${orderId} - Page ${i + 1} of ${range.count}`, MARGIN, doc.page.height - MARGIN, {
      width: doc.page.width - MARGIN * 2,
      align: 'center',
      lineBreak: false,
    });
    doc.page.margins.bottom = bottom;
  }
}

function formatDateTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The standard PDF fonts only have WinAnsi glyphs: other characters (CJK, emoji, …) are printed
 * as "?" rather than as wrong glyphs. Tabs become spaces; other control characters are dropped.
 */
function safe(text: string): string {
  return [...text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ')]
    .map((char) => {
      const code = char.codePointAt(0) ?? 0;
      if (char === '\n') return char;
      if (code < 32 || (code >= 127 && code < 160)) return '';
      return code <= 255 || WIN_ANSI_EXTRA.has(char) ? char : '?';
    })
    .join('');
}

/** WinAnsi characters outside Latin-1. */
const WIN_ANSI_EXTRA = new Set([...'€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ']);
