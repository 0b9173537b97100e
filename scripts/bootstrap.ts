/**
 * The one-shot bootstrap of a fresh Docker Compose stack (the `bootstrap` service, after the
 * migrations): the demo org (plan scale) and team, with an org_admin management key and a sandbox
 * team API key printed to its log — the only place they appear (labflow keeps hashes only).
 * Nothing is written to disk, so it runs as the image's unprivileged user.
 *
 *   node dist/scripts/migrate.js && node dist/scripts/bootstrap.js
 *
 * Idempotent: on a later start the org and team are there, no key is made, and it says how to
 * make new ones with the ops CLI. (`npm run seed` is the same for `npm run up`, keeping the keys
 * in .labflow/demo-keys.json instead.)
 */
import 'reflect-metadata';
import { ConfigError } from '../src/config/config';
import { DEMO_ORG_ID, DEMO_TEAM_ID, withDemoOrgAndTeam } from './seed';

/** How an operator makes keys in the running compose stack. */
const CLI = 'docker compose exec management node dist/src/cli.js';

async function main(): Promise<void> {
  await withDemoOrgAndTeam(async ({ org, team, teamEntity, keys }) => {
    const say = (line = '') => console.log(`[labflow] ${line}`);
    say(`demo org:  ${DEMO_ORG_ID} (${org})`);
    say(`demo team: ${DEMO_TEAM_ID} (region us; ${team})`);
    const made: string[] = [];
    if (org === 'created now') {
      const managementKey = await keys.issueManagementKey(DEMO_ORG_ID, 'org_admin', 'bootstrap (docker compose)');
      made.push(`management key (org_admin; header X-Management-Key): ${managementKey.value}`);
    }
    if (team === 'created now') {
      const teamKey = await keys.issueTeamKey(teamEntity, 'sandbox', 'bootstrap (docker compose)');
      made.push(`team API key (sandbox; header x-vital-api-key, the SDK's apiKey): ${teamKey.value}`);
    }
    if (made.length) {
      say('keys made now, shown this once (labflow stores only their hashes):');
      for (const line of made) say(`  ${line}`);
    }
    if (org === 'already there') {
      say('the demo org exists already: its keys were printed when it was made (docker compose logs bootstrap, while that log is kept).');
      say(`new keys: ${CLI} key create --org ${DEMO_ORG_ID}`);
      say(`          ${CLI} key create --team ${DEMO_TEAM_ID} --environment sandbox`);
    }
  });
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const message =
      error instanceof ConfigError ? error.message : `bootstrap failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    console.error(`[labflow] ERROR: ${message}`);
    process.exit(1);
  });
}
