import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lab catalog: labs, LOINC codes, markers (biomarkers and panels, per lab), lab tests
 * (global ones seeded for every team, and team-owned ones) and lab accounts (platform accounts
 * shared by teams, and team-owned accounts). Seed data comes in 1763790002001-lab-catalog-seed.
 */
export class LabCatalog1763790002000 implements MigrationInterface {
  name = 'LabCatalog1763790002000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE labs (
        id integer PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        name text NOT NULL,
        first_line_address text NOT NULL,
        city text NOT NULL,
        state text NOT NULL,
        zipcode text NOT NULL,
        collection_methods text[] NOT NULL,
        sample_types text[] NOT NULL,
        supports_delegated_accounts boolean NOT NULL DEFAULT false
      )`);

    await db.query(`
      CREATE TABLE loinc_codes (
        id integer PRIMARY KEY,
        code text NOT NULL UNIQUE,
        name text NOT NULL,
        slug text NOT NULL,
        unit text
      )`);

    // Reference and critical ranges are in `unit`; by_sex holds {male|female: {min, max}} where
    // the range differs by sex (the plain min/max then is the widest adult range, or null).
    await db.query(`
      CREATE TABLE lab_markers (
        id integer PRIMARY KEY,
        lab_id integer NOT NULL REFERENCES labs(id),
        name text NOT NULL,
        slug text NOT NULL,
        description text,
        provider_id text NOT NULL,
        type text NOT NULL CHECK (type IN ('biomarker', 'panel')),
        unit text,
        price numeric(10, 2) NOT NULL CHECK (price >= 0),
        a_la_carte_enabled boolean NOT NULL DEFAULT true,
        common_tat_days integer,
        worst_case_tat_days integer,
        loinc_id integer REFERENCES loinc_codes(id),
        reference_min numeric,
        reference_max numeric,
        critical_low numeric,
        critical_high numeric,
        reference_ranges_by_sex jsonb,
        UNIQUE (lab_id, provider_id),
        UNIQUE (lab_id, slug),
        CHECK (reference_min IS NULL OR reference_max IS NULL OR reference_min <= reference_max),
        CHECK (critical_low IS NULL OR critical_high IS NULL OR critical_low < critical_high)
      )`);
    await db.query(`CREATE INDEX lab_markers_name ON lab_markers (lower(name))`);

    await db.query(`
      CREATE TABLE lab_panel_members (
        panel_id integer NOT NULL REFERENCES lab_markers(id) ON DELETE CASCADE,
        member_id integer NOT NULL REFERENCES lab_markers(id),
        position integer NOT NULL,
        PRIMARY KEY (panel_id, member_id)
      )`);

    // team_id NULL: a global test every team sees; otherwise owned by one team in one environment.
    await db.query(`
      CREATE TABLE lab_tests (
        id uuid PRIMARY KEY,
        team_id uuid REFERENCES teams(id) ON DELETE CASCADE,
        environment text CHECK (environment IN ('sandbox', 'production')),
        lab_id integer NOT NULL REFERENCES labs(id),
        slug text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        sample_type text NOT NULL CHECK (sample_type IN ('dried_blood_spot', 'arm_collector', 'serum', 'saliva', 'urine')),
        method text NOT NULL CHECK (method IN ('testkit', 'walk_in_test', 'at_home_phlebotomy', 'on_site_collection')),
        price numeric(10, 2) NOT NULL CHECK (price >= 0),
        is_active boolean NOT NULL DEFAULT true,
        status text NOT NULL CHECK (status IN ('active', 'pending_approval', 'inactive')),
        fasting boolean NOT NULL DEFAULT false,
        is_delegated boolean NOT NULL DEFAULT false,
        auto_generated boolean NOT NULL DEFAULT false,
        has_collection_instructions boolean NOT NULL DEFAULT false,
        common_tat_days integer,
        worst_case_tat_days integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((team_id IS NULL) = (environment IS NULL))
      )`);
    await db.query(`CREATE INDEX lab_tests_team ON lab_tests (team_id, environment, created_at, id)`);

    await db.query(`
      CREATE TABLE lab_test_markers (
        lab_test_id uuid NOT NULL REFERENCES lab_tests(id) ON DELETE CASCADE,
        marker_id integer NOT NULL REFERENCES lab_markers(id),
        position integer NOT NULL,
        PRIMARY KEY (lab_test_id, marker_id)
      )`);
    await db.query(`CREATE INDEX lab_test_markers_marker ON lab_test_markers (marker_id)`);

    // team_id NULL: a platform account, usable by every team (or only those in team_id_allowlist
    // when it is not empty). environment NULL: usable in both environments.
    await db.query(`
      CREATE TABLE lab_accounts (
        id uuid PRIMARY KEY,
        team_id uuid REFERENCES teams(id) ON DELETE CASCADE,
        environment text CHECK (environment IN ('sandbox', 'production')),
        lab_id integer NOT NULL REFERENCES labs(id),
        status text NOT NULL CHECK (status IN ('active', 'pending', 'suspended', 'ready_to_launch')),
        delegated_flow text NOT NULL
          CHECK (delegated_flow IN ('order_delegated', 'result_delegated', 'fully_delegated', 'not_delegated')),
        provider_account_id text NOT NULL,
        account_name text NOT NULL,
        default_clinical_notes text CHECK (char_length(default_clinical_notes) <= 1000),
        allowed_billing text[] NOT NULL DEFAULT '{}',
        team_id_allowlist uuid[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX lab_accounts_team_lab ON lab_accounts (team_id, lab_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['lab_accounts', 'lab_test_markers', 'lab_tests', 'lab_panel_members', 'lab_markers', 'loinc_codes', 'labs']) {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
