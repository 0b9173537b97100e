import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { decodeCursor, type KeysetPosition } from '../../src/common/keyset-cursor';
import { EtlPipelinesRepository } from '../../src/management/etl-pipelines/etl-pipelines.repository';
import { ManagementKeysRepository } from '../../src/management/keys/management-keys.repository';
import { WebhooksRepository } from '../../src/management/webhooks/webhooks.repository';
import { createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** The management API's repositories with SQL of their own: key revocation, webhook listing and secrets, pipelines. */
let db: DataSource;
const teams: Team[] = [];

beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await dropTeams(db, teams);
  await db.destroy();
});

async function team(region = 'us'): Promise<Team> {
  const created = await createTeam(db, region);
  teams.push(created);
  return created;
}

describe('ManagementKeysRepository', () => {
  let repo: ManagementKeysRepository;
  beforeAll(() => (repo = new ManagementKeysRepository(db)));

  async function key(orgId: string, role = 'org_admin'): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO management_keys (id, org_id, label, role, team_ids, key_hash, key_prefix) VALUES ($1, $2, 'k', $3, '{}', $4, 'mk_')`, [
      id,
      orgId,
      role,
      randomBytes(32),
    ]);
    return id;
  }

  it("never revokes an org's last org_admin key; other roles go freely", async () => {
    const { orgId } = await team();
    const [a, b] = [await key(orgId), await key(orgId)];
    const member = await key(orgId, 'team_admin');
    expect(await repo.revoke(orgId, a)).toBe('revoked');
    expect(await repo.revoke(orgId, a)).toBe('not_found');
    expect(await repo.revoke(orgId, b)).toBe('last_org_key');
    expect(await repo.revoke(orgId, member)).toBe('revoked');
    expect((await repo.findActive(orgId, b))?.id).toBe(b);
    expect(await repo.revoke((await team()).orgId, b)).toBe('not_found');
  });

  it("concurrent revocations in one org neither deadlock nor revoke the org's last org_admin key", async () => {
    // A pool of its own, so every revocation of a round holds a connection at once.
    const wide = await testDatabase(8);
    try {
      const concurrent = new ManagementKeysRepository(wide);
      for (let round = 0; round < 8; round++) {
        const { orgId } = await team();
        const ids = [await key(orgId), await key(orgId), await key(orgId), await key(orgId, 'team_admin')];
        const outcomes = await Promise.allSettled(ids.map((id) => concurrent.revoke(orgId, id)));
        expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
        const answers = outcomes.map((outcome) => (outcome as PromiseFulfilledResult<string>).value);
        expect(answers.slice(0, 3).sort()).toEqual(['last_org_key', 'revoked', 'revoked']);
        expect(answers[3]).toBe('revoked');
        const [{ active }] = await db.query(
          `SELECT count(*)::int AS active FROM management_keys WHERE org_id = $1 AND role = 'org_admin' AND revoked_at IS NULL`,
          [orgId],
        );
        expect(active).toBe(1);
      }
    } finally {
      await wide.destroy();
    }
  });

  it("pages an org's active keys by creation across ties, filtered by team and role", async () => {
    const { orgId, teamId } = await team();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await key(orgId, i < 3 ? 'org_admin' : 'team_admin'));
    await db.query(`UPDATE management_keys SET created_at = '2026-01-01T00:00:00.000001Z' WHERE id = ANY($1::uuid[])`, [ids]);
    await db.query(`UPDATE management_keys SET team_ids = ARRAY[$2::uuid] WHERE id = $1`, [ids[4], teamId]);
    await repo.revoke(orgId, ids[0]);
    const seen: string[] = [];
    let after: KeysetPosition | undefined;
    for (;;) {
      const page = await repo.listActivePage(orgId, {}, after, 2);
      seen.push(...page.items.map((item) => item.id));
      if (!page.nextCursor) break;
      after = decodeCursor(page.nextCursor) ?? undefined;
    }
    expect(seen).toEqual(ids.slice(1).sort());
    expect((await repo.listActivePage(orgId, { teamId }, undefined, 10)).items.map((item) => item.id)).toEqual([ids[4]]);
    expect((await repo.listActivePage(orgId, { role: 'team_admin' as never }, undefined, 10)).items.map((item) => item.id).sort()).toEqual(
      [ids[3], ids[4]].sort(),
    );
  });
});

describe('WebhooksRepository', () => {
  let repo: WebhooksRepository;
  beforeAll(() => (repo = new WebhooksRepository(db)));

  async function endpoint(of: Team, secret = 'secret-1'): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO webhook_endpoints (id, team_id, environment, url, secret_enc) VALUES ($1, $2, 'sandbox', 'https://hooks.example.com', $3)`, [
      id,
      of.teamId,
      secret,
    ]);
    return id;
  }

  it('a rotation keeps the replaced secret for the grace period; two rotations keep the one just replaced', async () => {
    const mine = await team();
    const id = await endpoint(mine);
    const scope = { teamId: mine.teamId, environment: 'sandbox' as const };
    expect(await repo.rotateSecret(scope, id, 'secret-2', 3_600_000)).toBe(true);
    expect(await repo.rotateSecret(scope, id, 'secret-3', 3_600_000)).toBe(true);
    const [row] = await db.query(
      `SELECT secret_enc, previous_secret_enc, previous_secret_expires_at - now() BETWEEN interval '59 minutes' AND interval '61 minutes' AS graced FROM webhook_endpoints WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({ secret_enc: 'secret-3', previous_secret_enc: 'secret-2', graced: true });
    const other = await team();
    expect(await repo.rotateSecret({ teamId: other.teamId, environment: 'sandbox' }, id, 'stolen', 1)).toBe(false);
    expect(await repo.delete({ teamId: other.teamId, environment: 'sandbox' }, id)).toBe(false);
    expect(await repo.find({ teamId: other.teamId, environment: 'sandbox' }, id)).toBeNull();
  });

  it("pages a team's endpoints by creation across ties; an exactly full last page has no cursor", async () => {
    const mine = await team();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await endpoint(mine));
    await db.query(`UPDATE webhook_endpoints SET created_at = '2026-01-01T00:00:00.000001Z' WHERE id = ANY($1::uuid[])`, [ids]);
    await endpoint(await team());
    const scope = { teamId: mine.teamId, environment: 'sandbox' as const };
    const first = await repo.listPage(scope, undefined, 2);
    const second = await repo.listPage(scope, decodeCursor(first.nextCursor!)!, 2);
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual([...ids].sort());
    expect(second.nextCursor).toBeNull();
  });
});

describe('EtlPipelinesRepository', () => {
  let repo: EtlPipelinesRepository;
  beforeAll(() => (repo = new EtlPipelinesRepository(db)));
  const fields = (destinations: string) =>
    ({ eventTypePrefixes: ['labtest.'], preferred: 'rabbitmq', enabled: ['rabbitmq'], destinationsEnc: destinations }) as never;

  it("creates each team's pipeline once and replaces it after, keeping its id", async () => {
    const [a, b] = [await team(), await team()];
    const scope = { environment: 'sandbox' as const, region: 'us' as const };
    const created = await repo.upsert([a.teamId, b.teamId], scope, fields('first'), randomUUID);
    const replaced = await repo.upsert([a.teamId], scope, fields('second'), randomUUID);
    expect(replaced.map((row) => [row.id, row.destinationsEnc])).toEqual([[created.find((row) => row.teamId === a.teamId)!.id, 'second']]);
    expect((await repo.findForTeam(b.teamId, 'sandbox', 'us'))?.destinationsEnc).toBe('first');
    expect(await repo.deleteForTeams([a.teamId, (await team()).teamId], scope)).toEqual([a.teamId]);
    expect(await repo.findForTeam(a.teamId, 'sandbox', 'us')).toBeNull();
  });

  it('writes all the teams or none: one refused team undoes the others', async () => {
    const a = await team();
    const scope = { environment: 'sandbox' as const, region: 'us' as const };
    await expect(repo.upsert([a.teamId, randomUUID()], scope, fields('x'), randomUUID)).rejects.toThrow(/foreign key/);
    expect(await repo.findForTeam(a.teamId, 'sandbox', 'us')).toBeNull();
  });
});
