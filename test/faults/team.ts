/** The fault run's team (org, team, keys), the orders it places, and the revoked-key check. */
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import { http } from './http';
import { check, sleep } from './log';
import {
  APIS,
  CMP_ON_SITE_QUEST,
  CMP_WALK_IN_QUEST,
  type Group,
  MANAGEMENT,
  type Method,
  REVOCATION_BOUND_MS,
  TERMINAL,
  THYROID_AT_HOME_QUEST,
  VITAMIN_D_KIT,
} from './settings';

export interface Tenant {
  orgId: string;
  teamId: string;
  apiKey: string;
  managementKey: string;
}

/** An org, a us team, a sandbox team API key and an org_admin management key (as createTenant does). */
export async function createTenant(db: DataSource): Promise<Tenant> {
  const org = await db.getRepository(OrgEntity).save({ id: randomUUID(), name: 'Fault run org', plan: 'scale' });
  const team = await db.getRepository(TeamEntity).save({
    id: randomUUID(),
    orgId: org.id,
    name: 'Fault run team',
    region: 'us',
    integrationTeamId: null,
    partialWebhooksEnabled: false,
  });
  const keys = new ApiKeysService(db);
  const teamKey = await keys.issueTeamKey(team, 'sandbox', 'fault run');
  const managementKey = await keys.issueManagementKey(org.id, 'org_admin', 'fault run');
  return { orgId: org.id, teamId: team.id, apiKey: teamKey.value, managementKey: managementKey.value };
}

const PATIENT = {
  first_name: 'Marguerite',
  last_name: 'Okonkwo',
  dob: '1986-04-12',
  gender: 'female',
  phone_number: '+14155550123',
  email: 'marguerite@example.com',
};
const PHOENIX_ADDRESS = {
  receiver_name: 'Marguerite Okonkwo',
  first_line: '200 W Washington St',
  second_line: 'Suite 5',
  city: 'Phoenix',
  state: 'AZ',
  zip: '85004',
  country: 'US',
  phone_number: '+14155550123',
};
const PHYSICIAN = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };

export function orderBody(method: Method, userId: string): Record<string, unknown> {
  switch (method) {
    case 'testkit':
      return { user_id: userId, lab_test_id: VITAMIN_D_KIT, patient_details: PATIENT, patient_address: PHOENIX_ADDRESS };
    case 'at_home_phlebotomy':
      return { user_id: userId, lab_test_id: THYROID_AT_HOME_QUEST, patient_details: PATIENT, patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN };
    case 'walk_in_test':
      return { user_id: userId, lab_test_id: CMP_WALK_IN_QUEST, patient_details: PATIENT, patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN };
    case 'on_site_collection':
      return { user_id: userId, lab_test_id: CMP_ON_SITE_QUEST, patient_details: PATIENT, patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN };
  }
}

export interface OrderEvent {
  id: number;
  created_at: string;
  status: string;
  status_detail: string | null;
}

export interface RunOrder {
  id: string;
  method: Group;
  view: any;
  error: string | null;
}

/** Checks that every order of `orders` was created: the run cannot go on without them. */
export function requireCreated(orders: RunOrder[], what: string, detail = ''): void {
  const failed = orders.filter((order) => order.error);
  const errors = failed
    .map((order) => order.error)
    .slice(0, 3)
    .join('; ');
  if (!check(`${orders.length} ${what} created through POST /v3/order${detail}`, failed.length === 0, errors)) throw new Error(`${what} not created`);
}

export const low = (status: string) => status.split('.')[2] ?? status;
export const isTerminal = (order: RunOrder) => TERMINAL.has(order.view?.status);

/**
 * A second team key, used on every API replica (each caches it as verified), revoked through the
 * management API; then each replica is asked until it refuses the key (bounded). `ms`: how long
 * after the revocation answered that replica first refused it (null: not within the bound).
 */
export async function revokedKeyRefusals(tenant: Tenant): Promise<Array<{ api: string; accepted: boolean; ms: number | null; detail: string }>> {
  const path = `/v1/org/${tenant.orgId}/team_api_keys/sandbox/us`;
  const issued = await http(MANAGEMENT, 'POST', path, {
    managementKey: tenant.managementKey,
    body: { team_id: tenant.teamId, label: 'revoked by the fault run' },
  });
  if (issued.status !== 200)
    return APIS.map((api) => ({ api, accepted: false, ms: null, detail: `key not issued: ${issued.status} ${JSON.stringify(issued.body)}` }));
  const key = issued.body.value as string;
  const before = await Promise.all(APIS.map((api) => http(api, 'GET', '/v2/user?limit=1', { key })));
  const revoked = await http(MANAGEMENT, 'DELETE', `${path}?api_key_id=${issued.body.id}`, { managementKey: tenant.managementKey });
  const revokedAt = Date.now();
  if (revoked.status !== 200)
    return APIS.map((api) => ({ api, accepted: false, ms: null, detail: `not revoked: ${revoked.status} ${JSON.stringify(revoked.body)}` }));
  return Promise.all(
    APIS.map(async (api, index) => {
      const accepted = before[index].status === 200;
      for (;;) {
        const reply = await http(api, 'GET', '/v2/user?limit=1', { key }).catch(() => null);
        const ms = Date.now() - revokedAt;
        if (reply?.status === 401) return { api, accepted, ms, detail: `before ${before[index].status}, refused after ${ms} ms` };
        if (ms > REVOCATION_BOUND_MS)
          return { api, accepted, ms: null, detail: `before ${before[index].status}, still ${reply?.status ?? 'no answer'} after ${ms} ms` };
        await sleep(20);
      }
    }),
  );
}
