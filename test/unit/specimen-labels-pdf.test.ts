import { renderSpecimenLabelsPdf, type SpecimenLabelsInput } from '../../src/requisitions/specimen-labels-pdf';
import { readPdf } from '../helpers/pdf';

const input = (overrides: Partial<SpecimenLabelsInput> = {}): SpecimenLabelsInput => ({
  orderId: '0b9f3c1e-5d7a-4a8e-9c41-6f2d8e1a7b30',
  sampleId: 'LF7K2M9Q4X1A',
  patient: { firstName: 'Marguerite', lastName: 'Okonkwo', dob: '1986-04-12', gender: 'female' },
  labName: 'Quest Diagnostics',
  collectedAt: '2026-11-21T09:30:00Z',
  count: 3,
  ...overrides,
});

describe('specimen labels PDF (GET /v3/order/{id}/labels/pdf)', () => {
  it('prints one 2 × 1 inch label per tube with the patient, the sample id under its barcode, the collection time and the lab', async () => {
    const pdf = await renderSpecimenLabelsPdf(input());
    const { text, pages } = readPdf(pdf);
    expect(pages).toBe(3);
    expect(pdf.toString('latin1').match(/\/MediaBox \[0 0 144 72\]/g)).toHaveLength(3);
    const flat = text.replace(/\s+/g, ' ');
    expect(flat.split('OKONKWO, Marguerite DOB 1986-04-12 F LF7K2M9Q4X1A Coll 2026-11-21 09:30 UTC Quest Diagnostics').length - 1).toBe(3);
  });

  it('cuts a name too long for the label short, keeping the first name and birth date', async () => {
    const flat = readPdf(
      await renderSpecimenLabelsPdf(
        input({ count: 1, patient: { firstName: 'Marguerite', lastName: 'Okonkwo-Featherstonehaugh-Worthington', dob: '1986-04-12', gender: 'female' } }),
      ),
    ).text.replace(/\s+/g, ' ');
    expect(flat).toMatch(/OKONKWO-FEATHERSTONEHAU?G?H?[^ ]*\.\.\. Marguerite DOB 1986-04-12 F/);
    expect(flat).not.toContain('WORTHINGTON');
  });

  it('prints a collection date given without a time as just the date', async () => {
    const flat = readPdf(await renderSpecimenLabelsPdf(input({ count: 1, collectedAt: '2026-11-21' }))).text.replace(/\s+/g, ' ');
    expect(flat).toContain('Coll 2026-11-21 Quest Diagnostics');
  });

  it('is deterministic: the same labels give the same bytes', async () => {
    const [a, b] = await Promise.all([renderSpecimenLabelsPdf(input()), renderSpecimenLabelsPdf(input())]);
    expect(a.equals(b)).toBe(true);
  });
});
