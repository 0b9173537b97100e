import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Seeds the payor registry with real electronic payer ids of large US payors and the claims
 * address each publishes. `company` on an insurance is resolved from here by `payor_code`.
 */
const PAYORS: Array<[code: string, name: string, address: [string, string, string, string]]> = [
  ['60054', 'Aetna', ['PO Box 981106', 'El Paso', 'TX', '79998']],
  ['87726', 'UnitedHealthcare', ['PO Box 30555', 'Salt Lake City', 'UT', '84130']],
  ['62308', 'Cigna', ['PO Box 188061', 'Chattanooga', 'TN', '37422']],
  ['61101', 'Humana', ['PO Box 14601', 'Lexington', 'KY', '40512']],
  ['84980', 'Blue Cross and Blue Shield of Texas', ['PO Box 660044', 'Dallas', 'TX', '75266']],
  ['00621', 'Blue Cross and Blue Shield of Illinois', ['PO Box 805107', 'Chicago', 'IL', '60680']],
  ['00590', 'Florida Blue', ['PO Box 1798', 'Jacksonville', 'FL', '32231']],
  ['54771', 'Highmark Blue Cross Blue Shield', ['PO Box 890062', 'Camp Hill', 'PA', '17089']],
  ['47198', 'Anthem Blue Cross of California', ['PO Box 60007', 'Los Angeles', 'CA', '90060']],
  ['94135', 'Kaiser Permanente Northern California', ['PO Box 12923', 'Oakland', 'CA', '94604']],
  ['14163', 'WellCare Health Plans', ['PO Box 31372', 'Tampa', 'FL', '33631']],
  ['99726', 'TRICARE West Region', ['PO Box 202112', 'Florence', 'SC', '29502']],
  ['OSCAR', 'Oscar Health', ['PO Box 52146', 'Phoenix', 'AZ', '85072']],
  ['68069', 'Ambetter from Centene', ['PO Box 5010', 'Farmington', 'MO', '63640']],
];

export class PayorRegistry1763790000001 implements MigrationInterface {
  name = 'PayorRegistry1763790000001';

  async up(db: QueryRunner): Promise<void> {
    for (const [code, name, [firstLine, city, state, zip]] of PAYORS) {
      const address = { first_line: firstLine, second_line: null, city, state, zip, country: 'US' };
      await db.query(
        `INSERT INTO payors (code, name, address) VALUES ($1, $2, $3)
           ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name, address = EXCLUDED.address`,
        [code, name, JSON.stringify(address)],
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM payors WHERE code = ANY($1)`, [PAYORS.map(([code]) => code)]);
  }
}
