import {
  contentWidth,
  field,
  formatDateTime,
  keepTogether,
  pageFooters,
  paragraph,
  PDF_BOLD,
  PDF_FONT,
  PDF_GREY,
  PDF_MARGIN,
  pdfSafe,
  renderPdf,
  section,
} from '../common/pdf';
import { resultFlag } from './interpretation';
import { referenceRangeText } from './sandbox-results';
import type { BiomarkerResult, FailureType, LabResultsRaw } from './result.types';

/**
 * `GET /v3/order/{id}/result/pdf`: the lab's report as a printable document, from exactly what
 * `GET /v3/order/{id}/result` answers (src/common/pdf.ts: US Letter, standard Helvetica). Header
 * with the report's status and dates, the patient and ordering provider, every result in a table
 * (value, flag, units, reference range, the lab's notes under it), then what was not reported
 * and why. Every page carries the order id, the specimen number and the page count.
 *
 * Deterministic: the PDF's dates come from the report's `date_reported`, so the same report gives
 * the same bytes.
 */
export function renderResultReportPdf(report: LabResultsRaw, orderId: string): Promise<Buffer> {
  const metadata = report.metadata;
  const reported = new Date(metadata.date_reported);
  return renderPdf(
    {
      title: `Lab report ${metadata.specimen_number}`,
      author: metadata.laboratory ?? 'labflow',
      subject: 'Laboratory test report',
      date: Number.isNaN(reported.getTime()) ? new Date(0) : reported,
    },
    (doc) => {
      layout(doc, report, orderId);
      pageFooters(doc, (page, pages) => `labflow lab report - Order ${orderId} - Specimen ${metadata.specimen_number} - Page ${page} of ${pages}`);
    },
  );
}

/** Table columns: x offsets from the left margin and widths, in points (512 between margins). */
const COLUMNS = {
  test: { x: 0, width: 190 },
  result: { x: 196, width: 84 },
  flag: { x: 286, width: 52 },
  units: { x: 344, width: 62 },
  range: { x: 412, width: 100 },
} as const;

const STATUS_WORDS: Record<string, string> = {
  final: 'FINAL REPORT',
  partial: 'PARTIAL REPORT - further results to follow',
};

const INTERPRETATION_WORDS: Record<string, string> = {
  normal: 'Normal: every result within its reference range',
  abnormal: 'Abnormal: at least one result outside its reference range',
  critical: 'Critical: at least one result at a critical level',
  unknown: 'Not interpreted by the lab',
};

const FAILURE_WORDS: Record<FailureType, string> = {
  quantity_not_sufficient_failure: 'quantity not sufficient',
  collection_process_failure: 'problem during collection',
  drop_off_failure: 'problem at sample drop-off',
  internal_lab_failure: 'laboratory error',
  order_entry_failure: 'order entry problem',
  non_failure: 'not performed',
  unknown_failure: 'reason not given',
  patient_condition_failure: "patient's condition",
  missing_result_calc_failure: 'could not be calculated (a result it depends on is missing)',
  missing_demo_aoe_calc_failure: 'could not be calculated (patient details or order-entry answers missing)',
  insufficient_volume: 'insufficient volume',
};

function layout(doc: PDFKit.PDFDocument, report: LabResultsRaw, orderId: string): void {
  const metadata = report.metadata;
  doc
    .font(PDF_BOLD)
    .fontSize(18)
    .fillColor('black')
    .text('LABORATORY REPORT', PDF_MARGIN, doc.y, { width: contentWidth(doc) });
  doc
    .font(PDF_BOLD)
    .fontSize(11)
    .text(STATUS_WORDS[metadata.status ?? 'final'] ?? String(metadata.status));
  doc.moveDown(0.3);
  field(doc, 'Laboratory', metadata.laboratory ?? 'not given');
  if (metadata['clia_#']) field(doc, 'CLIA #', metadata['clia_#']);
  field(doc, 'Specimen number', metadata.specimen_number);
  field(doc, 'Order ID', orderId);
  if (metadata.date_collected) field(doc, 'Collected', dateTime(metadata.date_collected));
  if (metadata.date_received) field(doc, 'Received', dateTime(metadata.date_received));
  field(doc, 'Reported', dateTime(metadata.date_reported));

  section(doc, 'PATIENT');
  field(doc, 'Name', metadata.patient);
  field(doc, 'Date of birth', `${metadata.dob} (age ${metadata.age})`);
  if (metadata.patient_id) field(doc, 'Patient ID', metadata.patient_id);
  field(doc, 'Ordering provider', metadata.provider ?? 'not given');
  if (metadata.account_id) field(doc, 'Account', metadata.account_id);

  section(doc, 'RESULTS');
  if (metadata.interpretation) field(doc, 'Overall', INTERPRETATION_WORDS[metadata.interpretation] ?? metadata.interpretation);
  doc.moveDown(0.4);
  if (report.results.length === 0) paragraph(doc, 'No results reported yet.');
  else {
    tableHeader(doc);
    for (const result of report.results) resultRow(doc, result);
  }

  const missing = report.missing_results ?? [];
  if (missing.length > 0) {
    section(doc, 'NOT REPORTED');
    for (const item of missing) {
      keepTogether(doc, 2 * doc.currentLineHeight(true));
      field(doc, item.name, [FAILURE_WORDS[item.inferred_failure_type] ?? item.inferred_failure_type, item.note].filter(Boolean).join('. '));
    }
  }
}

function tableHeader(doc: PDFKit.PDFDocument): void {
  keepTogether(doc, 40);
  const y = doc.y;
  doc.font(PDF_BOLD).fontSize(9).fillColor('black');
  const heading = { test: 'Test', result: 'Result', flag: 'Flag', units: 'Units', range: 'Reference range' };
  for (const [column, text] of Object.entries(heading) as Array<[keyof typeof COLUMNS, string]>) {
    doc.text(text, PDF_MARGIN + COLUMNS[column].x, y, { width: COLUMNS[column].width });
  }
  const rule = doc.y + 1;
  doc
    .moveTo(PDF_MARGIN, rule)
    .lineTo(PDF_MARGIN + contentWidth(doc), rule)
    .lineWidth(0.5)
    .strokeColor(PDF_GREY)
    .stroke();
  doc.x = PDF_MARGIN;
  doc.y = rule + 3;
}

/** One result: its cells on one row (each may wrap), the lab's notes under it in grey. */
function resultRow(doc: PDFKit.PDFDocument, result: BiomarkerResult): void {
  keepTogether(doc, 3 * doc.currentLineHeight(true));
  if (doc.y === doc.page.margins.top) tableHeader(doc);
  const flag = resultFlag(result);
  const cells: Record<keyof typeof COLUMNS, string> = {
    test: result.name,
    result: result.result,
    flag: flag ?? '',
    units: result.unit ?? '',
    range: rangeText(result),
  };
  const top = doc.y;
  let bottom = top;
  for (const [column, text] of Object.entries(cells) as Array<[keyof typeof COLUMNS, string]>) {
    const emphasised = flag !== null && (column === 'result' || column === 'flag');
    doc
      .font(emphasised ? PDF_BOLD : PDF_FONT)
      .fontSize(9)
      .fillColor('black');
    doc.text(pdfSafe(text), PDF_MARGIN + COLUMNS[column].x, top, { width: COLUMNS[column].width });
    bottom = Math.max(bottom, doc.y);
  }
  doc.x = PDF_MARGIN;
  doc.y = bottom;
  if (result.notes) {
    doc
      .font(PDF_FONT)
      .fontSize(8)
      .fillColor(PDF_GREY)
      .text(pdfSafe(result.notes), PDF_MARGIN + 12, doc.y, { width: contentWidth(doc) - 12 });
    doc.x = PDF_MARGIN;
  }
  doc.y += 3;
}

/** The lab's own range text, else one built from the range's bounds, else nothing. */
function rangeText(result: BiomarkerResult): string {
  return result.reference_range ?? referenceRangeText({ min: result.min_range_value ?? null, max: result.max_range_value ?? null }) ?? '';
}

function dateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : formatDateTime(date);
}
