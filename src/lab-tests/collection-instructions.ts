import { field, keepTogether, pageFooters, paragraph, PDF_BOLD, PDF_MARGIN, contentWidth, pdfSafe, renderPdf, section } from '../common/pdf';
import type { CollectionMethod } from './lab-catalog.entities';

/** What collection instructions are written for: a lab test, or one order of it. */
export interface CollectionInstructionsInput {
  testName: string;
  labName: string;
  method: CollectionMethod;
  fasting: boolean;
  /** An order's own instructions name it and its sample id (a kit's card and bag carry it). */
  order: { id: string; sampleId: string | null } | null;
  /** The PDF's date (the lab test's last change, or the order's creation): same input, same bytes. */
  date: Date;
}

const FASTING =
  'Do not eat or drink anything but water for 8 to 12 hours before your sample is taken. Keep taking your usual medicines unless your doctor told you otherwise.';
const NO_FASTING = 'You do not need to fast for this test. Keep taking your usual medicines unless your doctor told you otherwise.';

/**
 * The steps of each collection method, in plain words for the patient (or, on site, for the staff
 * who draw). Written once here, for every lab test of the method: labflow's sandbox labs ask
 * nothing test-specific beyond fasting.
 */
const STEPS: Record<CollectionMethod, { title: string; before: string[]; steps: string[]; ifWrong: string }> = {
  testkit: {
    title: 'Collecting your sample at home (finger prick)',
    before: [
      'Collect on a Monday to Thursday morning, so the sample reaches the lab before the weekend.',
      'Check that the kit has a lancet, an alcohol pad, gauze, a bandage, the collection card, a specimen bag and the prepaid return envelope.',
    ],
    steps: [
      'Wash your hands in warm water for at least 30 seconds and dry them; warm hands bleed more easily.',
      'Write your full name, date of birth and the date and time of collection on the card.',
      'Clean the side of a fingertip of your non-writing hand with the alcohol pad and let it dry.',
      'Press the lancet firmly against the side of the fingertip and press its button.',
      'Wipe away the first drop with the gauze, then hold your hand below your heart and let a large drop form.',
      'Let the drop fall onto the centre of a circle without touching the card; fill every circle completely, one drop per circle.',
      'Put on the bandage.',
      'Let the card dry flat for at least 3 hours, away from sunlight and heat.',
      'Put the dry card in the specimen bag, seal it, and send it in the prepaid envelope the same day.',
    ],
    ifWrong: 'If a circle did not fill or the card got wet or dirty, do not send it: ask for a new kit.',
  },
  walk_in_test: {
    title: 'Giving your sample at a patient service center',
    before: ['Book a visit at a patient service center of the lab, or walk in during its opening hours.'],
    steps: [
      'Bring a photo ID and your requisition form (printed or on your phone).',
      'Drink water before your visit unless told otherwise: it makes the draw easier.',
      'At the center, give your name and date of birth; a phlebotomist takes the sample and sends it to the lab.',
    ],
    ifWrong: 'If you missed your visit or could not give a sample, book another visit.',
  },
  at_home_phlebotomy: {
    title: 'A phlebotomist takes your sample at home',
    before: ['Book a time for the visit; you can move or cancel it before it starts.'],
    steps: [
      'Have a photo ID ready and a well-lit place to sit at a table.',
      'Drink water before the visit unless told otherwise: it makes the draw easier.',
      'The phlebotomist brings everything needed, takes the sample and delivers it to the lab.',
    ],
    ifWrong: 'If you cannot be home at the booked time, move the visit before it starts.',
  },
  on_site_collection: {
    title: 'Drawing the sample on site (for the staff who draw)',
    before: ["Print the requisition form and the specimen labels (GET /v3/order/{id}/labels/pdf) before the patient's visit."],
    steps: [
      "Confirm the patient's identity: full name and date of birth, checked against the labels and the requisition.",
      "Draw into the tubes the lab asks for, and label each tube at the patient's side, never before the draw.",
      'Report the draw (PATCH /v3/order/{id}/draw_completed) as soon as it is done.',
      'Keep the tubes as the lab requires and hand them to the lab courier with the requisition the same day.',
    ],
    ifWrong: 'If a tube is unlabelled, mislabelled or short of blood, do not send it: draw again.',
  },
};

/** `GET /v3/lab_test/{id}/collection_instruction_pdf` and `GET /v3/order/{id}/collection_instruction_pdf`. */
export function renderCollectionInstructionsPdf(input: CollectionInstructionsInput): Promise<Buffer> {
  const instructions = STEPS[input.method];
  return renderPdf(
    { title: `Collection instructions: ${input.testName}`, author: input.labName, subject: 'Sample collection instructions', date: input.date },
    (doc) => {
      doc
        .font(PDF_BOLD)
        .fontSize(18)
        .fillColor('black')
        .text(pdfSafe(instructions.title), PDF_MARGIN, doc.y, { width: contentWidth(doc) });
      doc.moveDown(0.3);
      field(doc, 'Test', input.testName);
      field(doc, 'Laboratory', input.labName);
      if (input.order) {
        field(doc, 'Order ID', input.order.id);
        if (input.order.sampleId) field(doc, 'Sample ID', input.order.sampleId);
      }
      section(doc, 'BEFORE YOU START');
      paragraph(doc, input.fasting ? FASTING : NO_FASTING);
      for (const line of instructions.before) {
        doc.moveDown(0.3);
        paragraph(doc, line);
      }
      section(doc, 'STEPS');
      instructions.steps.forEach((step, index) => {
        keepTogether(doc, 2 * doc.currentLineHeight(true));
        doc.moveDown(0.2);
        paragraph(doc, `${index + 1}. ${step}`);
      });
      section(doc, 'IF SOMETHING GOES WRONG');
      paragraph(doc, instructions.ifWrong);
      pageFooters(
        doc,
        (page, pages) => `labflow collection instructions - ${input.order ? `Order ${input.order.id}` : input.testName} - Page ${page} of ${pages}`,
      );
    },
  );
}
