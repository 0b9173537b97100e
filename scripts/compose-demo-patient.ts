/**
 * Docker Compose's demo patient (the one-shot `demo-patient` service, once the API answers): what
 * `npm run up` prints as "Patient portal" (scripts/demo-patient.ts), printed to this service's log.
 *
 *   node dist/scripts/compose-demo-patient.js http://api:8000      (docker compose logs demo-patient)
 *
 * The compose stack keeps no key on disk (bootstrap prints them once), so this issues a sandbox key
 * of the demo team for its own calls and revokes it when done, whatever happened; the user and
 * order are found again through the API on later starts, and each start prints a new link.
 */
import 'reflect-metadata';
import { ConfigError } from '../src/config/config';
import { TeamApiKeysRepository } from '../src/management/team-api-keys/team-api-keys.repository';
import { DEMO_PATIENT_CLIENT_USER_ID, type DemoPatient, ensureDemoPatient } from './demo-patient';
import { withDemoOrgAndTeam } from './seed';

/** The demo patient through the API at `apiUrl`, with a team key that lives only as long as this call. */
export function composeDemoPatient(apiUrl: string, databaseUrl?: string): Promise<DemoPatient> {
  return withDemoOrgAndTeam(async ({ teamEntity, keys, db }) => {
    const key = await keys.issueTeamKey(teamEntity, 'sandbox', 'demo patient (docker compose; revoked after use)');
    try {
      return await ensureDemoPatient(apiUrl, key.value, null);
    } finally {
      await new TeamApiKeysRepository(db).revoke([key.record.id]);
    }
  }, databaseUrl);
}

async function main(): Promise<void> {
  const apiUrl = process.argv[2];
  if (!apiUrl) throw new Error('usage: node dist/scripts/compose-demo-patient.js <API URL as this container reaches it>');
  const patient = await composeDemoPatient(apiUrl);
  const say = (line: string) => console.log(`[labflow] ${line}`);
  say(`demo patient:   ${patient.userId} (client_user_id ${DEMO_PATIENT_CLIENT_USER_ID}; ${patient.user})`);
  say(`demo order:     ${patient.orderId} (test kit; ${patient.order})`);
  say(`patient portal: ${patient.portalUrl}`);
  say('  the one-time code it asks for on a new device is e-mailed to the patient: in this stack, the Mailpit inbox at http://localhost:8025');
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const message = error instanceof ConfigError ? error.message : `demo patient: ${error instanceof Error ? error.message : String(error)}`;
    console.error(`[labflow] ERROR: ${message}`);
    process.exit(1);
  });
}
