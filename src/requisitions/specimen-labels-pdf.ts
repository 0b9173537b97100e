import { formatDateTime, pdfSafe, PDF_BOLD, PDF_FONT, renderPdf } from '../common/pdf';
import { drawCode128 } from './barcode-pdf';
import type { RequisitionPatient } from './requisition.types';

/** A specimen label: 2 × 1 inches, the common size of tube-label printers. */
const LABEL_WIDTH = 144;
const LABEL_HEIGHT = 72;
const PAD = 5;

export interface SpecimenLabelsInput {
  orderId: string;
  /** The sample id the lab files the specimen under (the order id when there is none). */
  sampleId: string | null;
  patient: Pick<RequisitionPatient, 'firstName' | 'lastName' | 'dob' | 'gender'>;
  labName: string;
  /** When the sample is collected: a date (YYYY-MM-DD), or a date and time (ISO 8601). */
  collectedAt: string;
  /** How many identical labels (one per tube). */
  count: number;
}

/**
 * `GET /v3/order/{id}/labels/pdf`: one 2 × 1 inch page per label, for the tubes of a sample drawn
 * by the team's staff or a phlebotomist: the patient's last name, first name, date of birth and sex, a Code 128
 * barcode of the sample id with its text, the collection time and the lab. Deterministic: the
 * PDF's dates are the collection time.
 */
export function renderSpecimenLabelsPdf(input: SpecimenLabelsInput): Promise<Buffer> {
  return renderPdf(
    {
      title: `Specimen labels ${input.sampleId ?? input.orderId}`,
      author: input.labName,
      subject: 'Specimen labels',
      date: new Date(input.collectedAt),
      page: { size: [LABEL_WIDTH, LABEL_HEIGHT], margin: 0 },
    },
    (doc) => {
      for (let i = 0; i < input.count; i += 1) {
        if (i > 0) doc.addPage({ size: [LABEL_WIDTH, LABEL_HEIGHT], margin: 0 });
        label(doc, input);
      }
    },
  );
}

function label(doc: PDFKit.PDFDocument, input: SpecimenLabelsInput): void {
  const width = LABEL_WIDTH - 2 * PAD;
  const { patient } = input;
  const line = (text: string, y: number, font: string, size: number) => {
    doc.font(font).fontSize(size).fillColor('black');
    doc.text(fitted(doc, pdfSafe(text), width), PAD, y, { width, lineBreak: false });
  };
  // The last name alone on the first line, so a long one never pushes the first name off.
  line(`${patient.lastName.toUpperCase()},`, PAD, PDF_BOLD, 8);
  line(`${patient.firstName}   DOB ${patient.dob}   ${sexLetter(patient.gender)}`, PAD + 9, PDF_FONT, 7);
  const under = drawCode128(doc, input.sampleId ?? input.orderId, { x: PAD, y: PAD + 18, maxWidth: width, height: 20, maxModule: 1, fontSize: 6 });
  line(`Coll ${collectedText(input.collectedAt)}  ${input.labName}`, under, PDF_FONT, 6);
}

/** `text`, cut short with "..." when it is wider than `width` in the current font. */
function fitted(doc: PDFKit.PDFDocument, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  let cut = text;
  while (cut.length > 0 && doc.widthOfString(`${cut}...`) > width) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}...`;
}

/** A date as given; a date and time in UTC. */
function collectedText(collectedAt: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(collectedAt) ? collectedAt : formatDateTime(new Date(collectedAt));
}

function sexLetter(gender: string): string {
  if (gender === 'female') return 'F';
  if (gender === 'male') return 'M';
  return gender ? gender.slice(0, 1).toUpperCase() : '';
}
