import { type CollectionInstructionsInput, renderCollectionInstructionsPdf } from '../../src/lab-tests/collection-instructions';
import { pdfText } from '../helpers/pdf';

const input = (overrides: Partial<CollectionInstructionsInput> = {}): CollectionInstructionsInput => ({
  testName: 'Lipid Panel (test kit)',
  labName: 'US BioTek',
  method: 'testkit',
  fasting: true,
  order: null,
  date: new Date('2026-11-21T09:30:00Z'),
  ...overrides,
});

describe('collection instructions PDF', () => {
  it.each([
    ['testkit', 'Collecting your sample at home (finger prick)', 'Let the card dry flat for at least 3 hours'],
    ['walk_in_test', 'Giving your sample at a patient service center', 'Bring a photo ID and your requisition form'],
    ['at_home_phlebotomy', 'A phlebotomist takes your sample at home', 'The phlebotomist brings everything needed'],
    ['on_site_collection', 'Drawing the sample on site (for the staff who draw)', 'Report the draw (PATCH /v3/order/{id}/draw_completed)'],
  ] as const)('%s: its own title and steps', async (method, title, step) => {
    const text = pdfText(await renderCollectionInstructionsPdf(input({ method })));
    expect(text).toContain(title);
    expect(text).toContain(step);
    expect(text).toContain('Test: Lipid Panel (test kit) Laboratory: US BioTek');
  });

  it('says whether to fast, and names the order and its sample when written for one', async () => {
    const fasting = pdfText(await renderCollectionInstructionsPdf(input()));
    expect(fasting).toContain('Do not eat or drink anything but water for 8 to 12 hours');
    expect(fasting).not.toContain('Order ID');
    const ordered = pdfText(
      await renderCollectionInstructionsPdf(input({ fasting: false, order: { id: '0b9f3c1e-5d7a-4a8e-9c41-6f2d8e1a7b30', sampleId: 'LF7K2M9Q4X1A' } })),
    );
    expect(ordered).toContain('You do not need to fast for this test.');
    expect(ordered).toContain('Order ID: 0b9f3c1e-5d7a-4a8e-9c41-6f2d8e1a7b30 Sample ID: LF7K2M9Q4X1A');
    expect(ordered).toContain('labflow collection instructions - Order 0b9f3c1e-5d7a-4a8e-9c41-6f2d8e1a7b30 - Page 1 of 1');
  });
});
