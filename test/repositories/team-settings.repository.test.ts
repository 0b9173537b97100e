import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { TeamSettingsRepository } from '../../src/tenancy/team-settings.repository';
import { createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** TeamSettingsRepository: what the main API and workers read of a team's settings; an unknown team has none on. */
let db: DataSource;
let repo: TeamSettingsRepository;
let team: Team;

beforeAll(async () => {
  db = await testDatabase();
  repo = new TeamSettingsRepository(db);
  team = await createTeam(db);
});
afterAll(async () => {
  await dropTeams(db, [team]);
  await db.destroy();
});

it("reads the team's switches, and an unknown team's as off", async () => {
  await db.query(
    `UPDATE teams SET partial_webhooks_enabled = true, link_migration_enabled = true, lab_tests_patient_reminders_enabled = true,
            lab_tests_patient_email_communication_enabled = true, lab_tests_patient_sms_communication_enabled = false WHERE id = $1`,
    [team.teamId],
  );
  expect(await repo.partialWebhooksEnabled(team.teamId)).toBe(true);
  expect(await repo.linkMigrationEnabled(team.teamId)).toBe(true);
  expect(await repo.labReportHumanReviewEnabled(team.teamId)).toBe(false);
  expect(await repo.patientReminders(team.teamId)).toEqual({ enabled: true, email: true, sms: false });
  const unknown = randomUUID();
  expect([await repo.partialWebhooksEnabled(unknown), await repo.linkMigrationEnabled(unknown), await repo.labReportHumanReviewEnabled(unknown)]).toEqual([
    false,
    false,
    false,
  ]);
  expect(await repo.patientReminders(unknown)).toEqual({ enabled: false, email: false, sms: false });
});

it('shows the profile and the brand of a team, none of an unknown one', async () => {
  await db.query(`UPDATE teams SET name = 'Acme', logo_url = 'https://acme.example/logo.png', brand_information = '{"color": "#000"}' WHERE id = $1`, [
    team.teamId,
  ]);
  expect(await repo.profileOf(team.teamId)).toMatchObject({ id: team.teamId, orgId: team.orgId, name: 'Acme', logoUrl: 'https://acme.example/logo.png' });
  expect(await repo.brandOf(team.teamId)).toEqual({
    name: 'Acme',
    region: 'us',
    logoUrl: 'https://acme.example/logo.png',
    brandInformation: { color: '#000' },
  });
  expect(await repo.profileOf(randomUUID())).toBeNull();
  expect(await repo.brandOf(randomUUID())).toBeNull();
});
