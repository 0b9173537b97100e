import type { MigrationInterface, QueryRunner } from 'typeorm';
import { seedMarkers } from './1763790002001-lab-catalog-seed';

/**
 * Ask-at-order-entry questions (Junction's AoE: `marker.aoe.questions`): what a lab asks when a
 * marker is ordered, answered in an order's `aoe_answers` and printed on the requisition. Kept
 * on the marker as the SDK's Question objects (snake_case). The sandbox labs ask about fasting
 * for glucose, the lipid panel and the metabolic panel, about thyroid medication for TSH and
 * vitamin D supplements for vitamin D, none of them required. Question ids are the marker's id
 * times 10 plus the question's place; answer ids the question's id times 10 plus the answer's.
 */
type Kind = 'fasting' | 'thyroid' | 'vitamin_d';

const QUESTIONS_BY_KEY: Record<string, Kind> = {
  glucose: 'fasting',
  lipid_panel: 'fasting',
  comprehensive_metabolic_panel: 'fasting',
  tsh: 'thyroid',
  vitamin_d_25_oh: 'vitamin_d',
};

const yesNo = (questionId: number) => [
  { id: questionId * 10 + 1, code: 'Y', value: 'Yes' },
  { id: questionId * 10 + 2, code: 'N', value: 'No' },
];

function questionsFor(markerId: number, kind: Kind) {
  const id = (place: number) => markerId * 10 + place;
  switch (kind) {
    case 'fasting':
      return [
        {
          id: id(1),
          required: false,
          code: 'FASTING',
          value: 'Has the patient fasted for at least 8 hours?',
          type: 'choice',
          sequence: 1,
          answers: yesNo(id(1)),
        },
        { id: id(2), required: false, code: 'FASTHRS', value: 'Hours since the last meal', type: 'numeric', sequence: 2, answers: [], constraint: '0-72' },
      ];
    case 'thyroid':
      return [
        { id: id(1), required: false, code: 'THYMED', value: 'Is the patient taking thyroid medication?', type: 'choice', sequence: 1, answers: yesNo(id(1)) },
      ];
    case 'vitamin_d':
      return [
        {
          id: id(1),
          required: false,
          code: 'VITDSUP',
          value: 'Is the patient taking vitamin D supplements?',
          type: 'choice',
          sequence: 1,
          answers: yesNo(id(1)),
        },
      ];
  }
}

export class MarkerAoeQuestions1763790310000 implements MigrationInterface {
  name = 'MarkerAoeQuestions1763790310000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE lab_markers ADD COLUMN aoe_questions jsonb`);
    for (const marker of seedMarkers()) {
      const kind = QUESTIONS_BY_KEY[marker.key];
      if (kind) await db.query(`UPDATE lab_markers SET aoe_questions = $2 WHERE id = $1`, [marker.id, JSON.stringify(questionsFor(marker.id, kind))]);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE lab_markers DROP COLUMN aoe_questions`);
  }
}
