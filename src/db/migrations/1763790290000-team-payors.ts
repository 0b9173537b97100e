import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The payor registry grows payors of a team's own (`POST /v3/payor`, source `team`, seen by that
 * team only; the seeded ones are the platform's, `team_id` NULL) and the names it is searched by
 * (`GET /v3/insurance/search/payor`): the platform payors get the aliases people use for them, and
 * a team payor may carry its clearinghouse id (`provider`, `provider_payor_id`, unique per team).
 */
const ALIASES: Record<string, string[]> = {
  '60054': ['Aetna Health', 'Aetna Inc'],
  '87726': ['UHC', 'United Healthcare', 'UnitedHealth'],
  '62308': ['Cigna Healthcare'],
  '61101': ['Humana Health Plan'],
  '84980': ['BCBS Texas', 'BCBSTX'],
  '00621': ['BCBS Illinois', 'BCBSIL'],
  '00590': ['BCBS Florida', 'Blue Cross Blue Shield of Florida'],
  '54771': ['Highmark BCBS', 'Highmark'],
  '47198': ['Anthem Blue Cross', 'Anthem California'],
  '94135': ['Kaiser', 'KP Northern California'],
  '14163': ['WellCare'],
  '99726': ['Tricare West'],
  OSCAR: ['Oscar'],
  '68069': ['Ambetter', 'Centene'],
};

export class TeamPayors1763790290000 implements MigrationInterface {
  name = 'TeamPayors1763790290000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE payors
        ADD COLUMN team_id uuid REFERENCES teams(id) ON DELETE CASCADE,
        ADD COLUMN aliases text[] NOT NULL DEFAULT '{}',
        ADD COLUMN provider text,
        ADD COLUMN provider_payor_id text,
        ADD COLUMN created_at timestamptz NOT NULL DEFAULT now(),
        ADD CONSTRAINT payors_provider_pair CHECK ((provider IS NULL) = (provider_payor_id IS NULL))`);
    await db.query(`CREATE INDEX payors_team ON payors (team_id) WHERE team_id IS NOT NULL`);
    await db.query(`CREATE UNIQUE INDEX payors_team_provider_id ON payors (team_id, provider, provider_payor_id) WHERE provider IS NOT NULL`);
    for (const [code, aliases] of Object.entries(ALIASES)) {
      await db.query(`UPDATE payors SET aliases = $2 WHERE code = $1`, [code, aliases]);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM payors WHERE team_id IS NOT NULL`);
    await db.query(`ALTER TABLE payors DROP COLUMN team_id, DROP COLUMN aliases, DROP COLUMN provider, DROP COLUMN provider_payor_id, DROP COLUMN created_at`);
  }
}
