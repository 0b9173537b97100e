import { randomUUID } from 'node:crypto';
import { Vital, VitalClient } from '@tryvital/vital-node';
import type { TeamPrincipal } from '../../src/auth/principal';
import { RequestValidationError } from '../../src/common/errors';
import { LabAccountEntity } from '../../src/lab-tests/lab-catalog.entities';
import { LabAccountsService } from '../../src/lab-tests/lab-accounts.service';
import { OrderableLabTestsService } from '../../src/lab-tests/orderable-lab-tests.service';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * The lab catalog over HTTP and through the Junction SDK (@tryvital/vital-node), whose calls
 * parse every response (an unexpected shape throws), plus the services the order module uses.
 */
describe('lab catalog (/v3/lab_tests, /v3/lab_test)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let other: Tenant;
  let client: VitalClient;

  const QUEST = 1;
  const LABCORP = 2;
  const US_BIOTEK = 5;
  const SEED_TEST = {
    lipidKit: '1ab7e570-0000-4000-8000-000000000001',
    cmpWalkIn: '1ab7e570-0000-4000-8000-000000000003',
    cmpOnSite: '1ab7e570-0000-4000-8000-00000000000c',
    wellness: '1ab7e570-0000-4000-8000-000000000005',
    retiredIron: '1ab7e570-0000-4000-8000-00000000000a',
  };
  const ACCOUNT = {
    questPlatform: '1ab0acc0-0000-4000-8000-000000000001',
    questOrderDelegated: '1ab0acc0-0000-4000-8000-000000000101',
    labcorpFullyDelegated: '1ab0acc0-0000-4000-8000-000000000102',
    bioreferenceResultDelegated: '1ab0acc0-0000-4000-8000-000000000103',
    sonoraPending: '1ab0acc0-0000-4000-8000-000000000104',
    questSuspended: '1ab0acc0-0000-4000-8000-000000000105',
  };
  // Marker ids are lab_id * 1000 + n; panels lab_id * 1000 + 900 + n.
  const MARKER = { questGlucose: 1001, questHba1c: 1002, questLdl: 1007, questCmp: 1901, labcorpGlucose: 2001 };

  const api = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(stack.apiUrl, method, path, { key: tenant.apiKey, ...options });
  const clientFor = (key: string) =>
    new VitalClient({ baseUrl: stack.apiUrl, apiKey: key, headers: { 'x-service-api-key': key }, maxRetries: 0, timeoutInSeconds: 20 });
  const principal = (of: Tenant, environment: 'sandbox' | 'production' = 'sandbox'): TeamPrincipal => ({
    teamId: of.teamId,
    environment,
    region: 'us',
    apiKeyId: of.apiKeyId,
  });
  const insertAccount = (fields: Partial<LabAccountEntity>) =>
    stack.db.getRepository(LabAccountEntity).save({
      id: randomUUID(),
      teamId: tenant.teamId,
      environment: null,
      labId: QUEST,
      status: 'active',
      delegatedFlow: 'order_delegated',
      providerAccountId: `TEAM-${randomUUID().slice(0, 8)}`,
      accountName: 'Team account',
      defaultClinicalNotes: null,
      allowedBilling: ['client_bill'],
      teamIdAllowlist: [],
      ...fields,
    });
  const expect422 = async (promise: Promise<unknown>, loc: Array<string | number>) => {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0].loc).toEqual(loc);
    return error as RequestValidationError;
  };

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
    client = clientFor(tenant.apiKey);
  });
  afterAll(() => stack.close());

  describe('labs', () => {
    it('lists the seeded US labs with Junction slugs, parsed by the SDK', async () => {
      const labs = await client.labTests.getLabs();
      expect(labs.map((lab) => lab.slug)).toEqual(['quest', 'labcorp', 'bioreference', 'sonora_quest', 'us_biotek']);
      expect(labs[0]).toMatchObject({
        id: QUEST,
        name: 'Quest Diagnostics',
        zipcode: '07094',
        collectionMethods: ['walk_in_test', 'at_home_phlebotomy', 'on_site_collection'],
      });
      expect(labs.find((lab) => lab.slug === 'us_biotek')).toMatchObject({
        collectionMethods: ['testkit'],
        sampleTypes: expect.arrayContaining(['dried_blood_spot']),
      });
    });
  });

  describe('markers', () => {
    it('pages through every marker with total, page, size and pages', async () => {
      const first = await api('GET', '/v3/lab_tests/markers');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 280, page: 1, size: 50, pages: 6 });
      expect(first.body.markers).toHaveLength(50);
      const last = await api('GET', '/v3/lab_tests/markers?page=6');
      expect(last.body.markers).toHaveLength(30);
      const beyond = await api('GET', '/v3/lab_tests/markers?page=7');
      expect(beyond.body).toMatchObject({ markers: [], total: 280, page: 7, pages: 6 });
      const small = await api('GET', '/v3/lab_tests/markers?size=100&lab_slug=quest');
      expect(small.body).toMatchObject({ total: 66, size: 100, pages: 1 });
    });

    it('filters by repeated lab_id, lab_slug, case-insensitive name and a_la_carte_enabled', async () => {
      const twoLabs = await api('GET', `/v3/lab_tests/markers?lab_id=${QUEST}&lab_id=${US_BIOTEK}&size=100`);
      expect(twoLabs.body.total).toBe(66 + 16);
      expect(new Set(twoLabs.body.markers.map((marker: { lab_id: number }) => marker.lab_id))).toEqual(new Set([QUEST, US_BIOTEK]));

      const kit = await api('GET', '/v3/lab_tests/markers?lab_slug=us_biotek');
      expect(kit.body.total).toBe(16);

      const cholesterol = await api('GET', '/v3/lab_tests/markers?lab_slug=quest&name=CHOLESTEROL');
      expect(cholesterol.body.markers.map((marker: { name: string }) => marker.name).sort()).toEqual([
        'Cholesterol, Total',
        'HDL Cholesterol',
        'LDL Cholesterol (calculated)',
        'Non-HDL Cholesterol',
      ]);

      // By test code too ("the name or test code", as the SDK says); the bracket form of lab_id.
      const byCode = await api('GET', '/v3/lab_tests/markers?lab_slug=quest&name=10005');
      expect(byCode.body.markers.map((marker: { name: string; provider_id: string }) => [marker.provider_id, marker.name])).toEqual([
        ['10005', 'HDL Cholesterol'],
      ]);
      expect((await api('GET', `/v3/lab_tests/markers?lab_id[]=${QUEST}&lab_id[]=${US_BIOTEK}&size=1`)).body.total).toBe(66 + 16);
      expect((await api('GET', `/v3/lab_tests/markers?lab_id[]=${US_BIOTEK}&size=1`)).body.total).toBe(16);

      const orderable = await api('GET', '/v3/lab_tests/markers?lab_slug=quest&name=cholesterol&a_la_carte_enabled=true');
      expect(orderable.body.total).toBe(2);

      // lab_slug and lab_id narrow each other; an unknown slug matches nothing.
      const disjoint = await api('GET', `/v3/lab_tests/markers?lab_slug=quest&lab_id=${LABCORP}`);
      expect(disjoint.body).toMatchObject({ markers: [], total: 0, pages: 0 });
      const unknown = await api('GET', '/v3/lab_tests/markers?lab_slug=no_such_lab');
      expect(unknown.body).toMatchObject({ markers: [], total: 0 });
    });

    it('filters by lab account (its lab), and refuses an account the team cannot see', async () => {
      const byAccount = await api('GET', `/v3/lab_tests/markers?lab_account_id=${ACCOUNT.labcorpFullyDelegated}&size=100`);
      expect(byAccount.status).toBe(200);
      expect(byAccount.body.total).toBe(66);
      expect(byAccount.body.markers.every((marker: { lab_id: number }) => marker.lab_id === LABCORP)).toBe(true);
      const unknown = await api('GET', `/v3/lab_tests/markers?lab_account_id=${randomUUID()}`);
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail[0].loc).toEqual(['query', 'lab_account_id']);
    });

    it("reads a lab test, its markers or a marker with lab_account_id only at that account's lab", async () => {
      const atQuest = `lab_account_id=${ACCOUNT.questPlatform}`;
      const atLabcorp = `lab_account_id=${ACCOUNT.labcorpFullyDelegated}`;
      expect((await api('GET', `/v3/lab_tests/${SEED_TEST.cmpWalkIn}?${atQuest}`)).body.id).toBe(SEED_TEST.cmpWalkIn);
      expect((await api('GET', `/v3/lab_tests/${SEED_TEST.cmpWalkIn}/markers?${atQuest}`)).body.total).toBeGreaterThan(0);
      expect((await api('GET', `/v3/lab_tests/${LABCORP}/markers/20005?${atLabcorp}`)).body.name).toMatch(/^HDL/);
      for (const path of [
        `/v3/lab_tests/${SEED_TEST.cmpWalkIn}?${atLabcorp}`,
        `/v3/lab_tests/${SEED_TEST.cmpWalkIn}/markers?${atLabcorp}`,
        `/v3/lab_tests/${QUEST}/markers/10005?${atLabcorp}`,
      ]) {
        const elsewhere = await api('GET', path);
        expect(elsewhere.status).toBe(404);
        expect(elsewhere.body.detail).toBe(
          `${path.includes('/markers/') ? 'Marker' : 'Lab test'} at the lab of lab account ${ACCOUNT.labcorpFullyDelegated} not found.`,
        );
      }
      const unknown = await api('GET', `/v3/lab_tests/${SEED_TEST.cmpWalkIn}?lab_account_id=${randomUUID()}`);
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail[0].loc).toEqual(['query', 'lab_account_id']);
    });

    it('refuses bad paging with 422 in the FastAPI shape', async () => {
      for (const query of ['size=101', 'size=0', 'page=0', 'page=abc']) {
        const response = await api('GET', `/v3/lab_tests/markers?${query}`);
        expect(response.status).toBe(422);
        expect(response.body.detail[0].loc[0]).toBe('query');
      }
    });

    it('gives biomarkers their LOINC-coded result and panels the results of their members', async () => {
      const glucose = await api('GET', '/v3/lab_tests/markers?lab_slug=quest&name=glucose');
      const marker = glucose.body.markers.find((candidate: { id: number }) => candidate.id === MARKER.questGlucose);
      expect(marker).toMatchObject({ slug: 'glucose', type: 'biomarker', unit: 'mg/dL', lab_id: QUEST, provider_id: '10001', price: '8.00' });
      expect(marker.expected_results).toEqual([
        expect.objectContaining({ id: MARKER.questGlucose, required: true, loinc: expect.objectContaining({ code: '2345-7', unit: 'mg/dL' }) }),
      ]);

      const cmp = await api('GET', '/v3/lab_tests/markers?lab_slug=quest&name=comprehensive');
      expect(cmp.body.markers).toHaveLength(1);
      const panel = cmp.body.markers[0];
      expect(panel).toMatchObject({ id: MARKER.questCmp, type: 'panel', unit: null });
      expect(panel.expected_results).toHaveLength(16);
      const codes = panel.expected_results.map((result: { loinc: { code: string } }) => result.loinc.code);
      expect(codes).toEqual(
        expect.arrayContaining(['2345-7', '2160-0', '3094-0', '2951-2', '2823-3', '17861-6', '1742-6', '1920-8', '6768-6', '1975-2', '1751-7']),
      );
    });

    it('codes Vitamin D, 25-Hydroxy as total 25-OH vitamin D (62292-8), as lab-report parsing matches the name', async () => {
      const vitaminD = await api('GET', '/v3/lab_tests/markers?name=vitamin%20d&size=100');
      const markers = vitaminD.body.markers.filter((marker: { slug: string }) => marker.slug === 'vitamin_d_25_oh');
      expect(markers.length).toBeGreaterThan(1);
      for (const marker of markers) expect(marker.expected_results[0].loinc).toMatchObject({ code: '62292-8', unit: 'ng/mL' });
    });

    it('parses through the SDK: getMarkers, getMarkersByLabAndProviderId', async () => {
      const page = await client.labTests.getMarkers({ labId: [QUEST, LABCORP], name: 'glucose', page: 1, size: 10 });
      expect(page.total).toBe(2);
      expect(page.markers.map((marker) => marker.labId).sort()).toEqual([QUEST, LABCORP]);
      expect(page.markers[0].expectedResults[0].loinc?.code).toBe('2345-7');

      const byProvider = await client.labTests.getMarkersByLabAndProviderId('10001', QUEST);
      expect(byProvider).toMatchObject({ id: MARKER.questGlucose, name: 'Glucose', aLaCarteEnabled: true });
      const missing = await api('GET', `/v3/lab_tests/${QUEST}/markers/nope`);
      expect(missing.status).toBe(404);
    });
  });

  describe('lab tests', () => {
    it('lists the global tests for every collection method, with filters', async () => {
      const all = await api('GET', '/v3/lab_tests');
      expect(all.status).toBe(200);
      const seeded = all.body.filter((test: { id: string }) => test.id.startsWith('1ab7e570-'));
      // 10 from the seed, 1 from migration 1763790006000 (Labcorp's lipid kit), 1 from 1763790260000 (Quest's on-site CMP).
      expect(seeded).toHaveLength(12);
      expect(new Set(seeded.map((test: { method: string }) => test.method))).toEqual(
        new Set(['testkit', 'walk_in_test', 'at_home_phlebotomy', 'on_site_collection']),
      );
      const onSite = await api('GET', '/v3/lab_tests?collection_method=on_site_collection');
      expect(onSite.body).toEqual([
        expect.objectContaining({
          id: SEED_TEST.cmpOnSite,
          method: 'on_site_collection',
          description: 'CMP drawn on site by your own staff and sent to Quest.',
          lab: expect.objectContaining({ slug: 'quest' }),
        }),
      ]);

      const kits = await api('GET', '/v3/lab_tests?collection_method=testkit');
      expect(kits.body.map((test: { id: string }) => test.id).sort()).toEqual([
        SEED_TEST.lipidKit,
        '1ab7e570-0000-4000-8000-000000000002',
        '1ab7e570-0000-4000-8000-00000000000b',
      ]);
      expect(kits.body.find((test: { id: string }) => test.id === SEED_TEST.lipidKit)).toMatchObject({
        sample_type: 'dried_blood_spot',
        lab: { slug: 'us_biotek' },
      });
      expect(kits.body.find((test: { id: string }) => test.id === '1ab7e570-0000-4000-8000-00000000000b')).toMatchObject({
        sample_type: 'dried_blood_spot',
        lab: { slug: 'labcorp' },
      });

      const quest = await api('GET', '/v3/lab_tests?lab_slug=quest&generation_method=all');
      expect(quest.body.every((test: { lab: { slug: string } }) => test.lab.slug === 'quest')).toBe(true);

      const inactive = await api('GET', '/v3/lab_tests?status=inactive');
      expect(inactive.body.map((test: { id: string }) => test.id)).toEqual([SEED_TEST.retiredIron]);

      const withCmp = await api('GET', `/v3/lab_tests?marker_ids=${MARKER.questCmp}`);
      expect(withCmp.body.map((test: { id: string }) => test.id).sort()).toEqual([SEED_TEST.cmpWalkIn, SEED_TEST.cmpOnSite].sort());
      const byProvider = await api('GET', '/v3/lab_tests?provider_ids=10901');
      expect(byProvider.body.map((test: { id: string }) => test.id).sort()).toEqual([SEED_TEST.cmpWalkIn, SEED_TEST.cmpOnSite].sort());

      const byName = await api('GET', '/v3/lab_tests?name=HORMONE');
      expect(byName.body.map((test: { name: string }) => test.name)).toEqual(['Hormone Panel (at-home phlebotomy)']);

      const cheapestFirst = await api('GET', '/v3/lab_tests?order_key=price&order_direction=asc');
      const prices = cheapestFirst.body.map((test: { price: number }) => test.price);
      expect(prices).toEqual([...prices].sort((a, b) => a - b));

      const auto = await api('GET', '/v3/lab_tests?generation_method=auto');
      expect(auto.body).toEqual([]);
      const badMethod = await api('GET', '/v3/lab_tests?collection_method=by_pigeon');
      expect(badMethod.status).toBe(422);
      expect(badMethod.body.detail[0].loc).toEqual(['query', 'collection_method']);
    });

    it('parses through the SDK: get, getById, getMarkersForLabTest, getPaginated', async () => {
      const phlebotomy = await client.labTests.get({ collectionMethod: 'at_home_phlebotomy' });
      expect(phlebotomy.length).toBeGreaterThanOrEqual(3);
      expect(phlebotomy.every((test) => test.method === 'at_home_phlebotomy')).toBe(true);

      const wellness = await client.labTests.getById(SEED_TEST.wellness);
      expect(wellness).toMatchObject({ name: 'Essential Wellness Panel (walk-in)', method: 'walk_in_test', isActive: true, status: 'active', fasting: true });
      expect(wellness.lab?.slug).toBe('sonora_quest');
      expect(wellness.markers?.map((marker) => marker.type)).toEqual(['panel', 'panel', 'panel', 'biomarker']);

      const firstTwo = await client.labTests.getMarkersForLabTest(SEED_TEST.wellness, { page: 1, size: 2 });
      expect(firstTwo).toMatchObject({ total: 4, page: 1, size: 2, pages: 2 });
      expect(firstTwo.markers[0].expectedResults.length).toBe(16);

      const ids: string[] = [];
      let cursor: string | undefined;
      for (let round = 0; round < 10; round += 1) {
        const page = await client.labTests.getPaginated({ labTestLimit: 4, nextCursor: cursor, generationMethod: 'all' });
        ids.push(...page.data.map((test) => test.id));
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      const listed = (await client.labTests.get({ generationMethod: 'all' })).map((test) => test.id);
      expect(ids).toEqual(listed);
      const badCursor = await api('GET', '/v3/lab_test?next_cursor=garbage');
      expect(badCursor.status).toBe(422);
      expect(badCursor.body.detail[0].loc).toEqual(['query', 'next_cursor']);
    });

    it('creates a team test from markers of one lab, visible to that team only', async () => {
      const created = await client.labTests.create({
        name: 'Glucose and A1c',
        method: 'walk_in_test',
        description: 'Diabetes screen',
        markerIds: [MARKER.questGlucose, MARKER.questHba1c],
        fasting: true,
      });
      expect(created).toMatchObject({
        name: 'Glucose and A1c',
        slug: 'glucose-and-a1c',
        method: 'walk_in_test',
        sampleType: 'serum',
        isActive: true,
        status: 'active',
        fasting: true,
        price: 23,
      });
      expect(created.lab?.slug).toBe('quest');
      expect(created.markers?.map((marker) => marker.id)).toEqual([MARKER.questGlucose, MARKER.questHba1c]);

      const byProvider = await api('POST', '/v3/lab_tests', {
        body: { name: 'Glucose by provider id', method: 'at_home_phlebotomy', description: '', provider_ids: ['10001'] },
      });
      expect(byProvider.status).toBe(200);
      expect(byProvider.body).toMatchObject({ lab: { id: QUEST }, markers: [{ id: MARKER.questGlucose }], fasting: false });

      const mine = await api('GET', '/v3/lab_tests');
      expect(mine.body.map((test: { id: string }) => test.id)).toContain(created.id);
      expect(mine.body.find((test: { id: string }) => test.id === created.id)).toMatchObject({ description: 'Diabetes screen' });
      expect((await api('GET', `/v3/lab_tests/${created.id}`)).status).toBe(200);

      const theirs = await call(stack.apiUrl, 'GET', '/v3/lab_tests', { key: other.apiKey });
      expect(theirs.body.map((test: { id: string }) => test.id)).not.toContain(created.id);
      expect(theirs.body.map((test: { id: string }) => test.id)).toContain(SEED_TEST.lipidKit);
      const foreign = await call(stack.apiUrl, 'GET', `/v3/lab_tests/${created.id}`, { key: other.apiKey });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ detail: 'Lab test not found.' });
      const foreignPatch = await call(stack.apiUrl, 'PATCH', `/v3/lab_tests/${created.id}`, { key: other.apiKey, body: { active: false } });
      expect(foreignPatch.status).toBe(404);
      const foreignMarkers = await call(stack.apiUrl, 'GET', `/v3/lab_tests/${created.id}/markers`, { key: other.apiKey });
      expect(foreignMarkers.status).toBe(404);
    });

    it('refuses unknown, calculated and cross-lab markers, and methods the lab does not offer', async () => {
      const unknown = await api('POST', '/v3/lab_tests', {
        body: { name: 'x', method: 'walk_in_test', description: '', marker_ids: [MARKER.questGlucose, 999999] },
      });
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'marker_ids', 1], input: 999999 })]);

      const crossLab = await api('POST', '/v3/lab_tests', {
        body: { name: 'x', method: 'walk_in_test', description: '', marker_ids: [MARKER.questGlucose, MARKER.labcorpGlucose] },
      });
      expect(crossLab.status).toBe(422);
      expect(crossLab.body.detail[0]).toMatchObject({ loc: ['body', 'marker_ids'], ctx: { lab_ids: [QUEST, LABCORP] } });
      expect(crossLab.body.detail[0].msg).toContain('one lab');

      const calculated = await api('POST', '/v3/lab_tests', {
        body: { name: 'x', method: 'walk_in_test', description: '', marker_ids: [MARKER.questLdl] },
      });
      expect(calculated.status).toBe(422);
      expect(calculated.body.detail[0].loc).toEqual(['body', 'marker_ids', 0]);

      const wrongMethod = await api('POST', '/v3/lab_tests', {
        body: { name: 'x', method: 'testkit', description: '', marker_ids: [MARKER.questGlucose] },
      });
      expect(wrongMethod.status).toBe(422);
      expect(wrongMethod.body.detail[0].loc).toEqual(['body', 'method']);

      const empty = await api('POST', '/v3/lab_tests', { body: { name: 'x', method: 'walk_in_test', description: '' } });
      expect(empty.status).toBe(422);
      const unknownProvider = await api('POST', '/v3/lab_tests', {
        body: { name: 'x', method: 'walk_in_test', description: '', provider_ids: ['nope'] },
      });
      expect(unknownProvider.body.detail[0].loc).toEqual(['body', 'provider_ids', 0]);
      const missingName = await api('POST', '/v3/lab_tests', { body: { method: 'walk_in_test', description: '', marker_ids: [1001] } });
      expect(missingName.status).toBe(422);
      expect(missingName.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'missing' });

      await expect(client.labTests.create({ name: 'x', method: 'walk_in_test', description: '', markerIds: [999999] })).rejects.toBeInstanceOf(
        Vital.UnprocessableEntityError,
      );
    });

    it('renames and deactivates a team test through the SDK; global tests stay as they are', async () => {
      const created = await client.labTests.create({ name: 'To rename', method: 'walk_in_test', description: 'd', markerIds: [MARKER.questGlucose] });
      const renamed = await client.labTests.updateLabTest(created.id, { name: 'Renamed test' });
      expect(renamed).toMatchObject({ id: created.id, name: 'Renamed test', slug: 'renamed-test', isActive: true });
      const off = await client.labTests.updateLabTest(created.id, { active: false });
      expect(off).toMatchObject({ isActive: false, status: 'inactive' });
      const on = await client.labTests.updateLabTest(created.id, { active: true });
      expect(on).toMatchObject({ isActive: true, status: 'active' });

      const global = await api('PATCH', `/v3/lab_tests/${SEED_TEST.lipidKit}`, { body: { name: 'Mine now' } });
      expect(global.status).toBe(403);
      const notUuid = await api('GET', '/v3/lab_tests/not-a-uuid');
      expect(notUuid.status).toBe(422);
      expect(notUuid.body.detail[0].loc).toEqual(['path', 'lab_test_id']);
    });

    it('lists the markers of an order set (lab tests + add-ons of one lab)', async () => {
      const markers = await client.labTests.getMarkersForOrderSet({
        page: 1,
        size: 10,
        body: { labTestIds: [SEED_TEST.cmpWalkIn], addOn: { markerIds: [MARKER.questHba1c], providerIds: ['10016'] } },
      });
      expect(markers.markers.map((marker) => marker.id)).toEqual([MARKER.questCmp, MARKER.questHba1c, 1016]);
      expect(markers.total).toBe(3);

      const mixed = await api('POST', '/v3/lab_tests/list_order_set_markers', {
        body: { lab_test_ids: [SEED_TEST.cmpWalkIn], add_on: { marker_ids: [MARKER.labcorpGlucose] } },
      });
      expect(mixed.status).toBe(422);
      expect(mixed.body.detail[0].loc).toEqual(['body']);

      const wrongAccount = await api('POST', '/v3/lab_tests/list_order_set_markers', {
        body: { lab_test_ids: [SEED_TEST.cmpWalkIn], lab_account_id: ACCOUNT.labcorpFullyDelegated },
      });
      expect(wrongAccount.status).toBe(422);
      expect(wrongAccount.body.detail[0].loc).toEqual(['body', 'lab_account_id']);
    });
  });

  describe('lab accounts', () => {
    it('lists platform accounts and sandbox accounts of every kind, filtered by id and status', async () => {
      const all = await api('GET', '/v3/lab_test/lab_account');
      expect(all.status).toBe(200);
      const accounts = all.body.data as Array<{ id: string; lab: string; status: string; delegated_flow: string }>;
      expect(new Set(accounts.map((account) => account.delegated_flow))).toEqual(
        new Set(['not_delegated', 'order_delegated', 'result_delegated', 'fully_delegated']),
      );
      expect(new Set(accounts.map((account) => account.status))).toEqual(new Set(['active', 'pending', 'suspended', 'ready_to_launch']));
      for (const lab of ['quest', 'labcorp', 'bioreference', 'sonora_quest', 'us_biotek']) {
        expect(accounts.some((account) => account.lab === lab && account.delegated_flow === 'not_delegated' && account.status === 'active')).toBe(true);
      }
      expect(accounts[0]).toEqual({
        id: expect.any(String),
        lab: expect.any(String),
        status: expect.any(String),
        delegated_flow: expect.any(String),
        provider_account_id: expect.any(String),
        account_name: expect.any(String),
        default_clinical_notes: null,
        allowed_billing: expect.any(Array),
        team_id_allowlist: [],
      });

      const pending = await api('GET', '/v3/lab_test/lab_account?status=PENDING');
      expect(pending.body.data.map((account: { status: string }) => account.status)).toEqual(['pending', 'pending']);
      const one = await api('GET', `/v3/lab_test/lab_account?lab_account_id=${ACCOUNT.questOrderDelegated}`);
      expect(one.body.data).toEqual([expect.objectContaining({ id: ACCOUNT.questOrderDelegated, lab: 'quest', delegated_flow: 'order_delegated' })]);
      const bad = await api('GET', '/v3/lab_test/lab_account?status=closed');
      expect(bad.status).toBe(422);
    });

    it("shows a team its own accounts first and never another team's; production sees no sandbox fixtures", async () => {
      const owner = await createTenant(stack.db);
      const own = await insertAccount({ teamId: owner.teamId, labId: LABCORP, accountName: 'Owner account' });
      const listed = await call(stack.apiUrl, 'GET', '/v3/lab_test/lab_account', { key: owner.apiKey });
      expect(listed.body.data[0]).toMatchObject({ id: own.id, lab: 'labcorp', account_name: 'Owner account' });
      const others = await call(stack.apiUrl, 'GET', '/v3/lab_test/lab_account', { key: other.apiKey });
      expect(others.body.data.map((account: { id: string }) => account.id)).not.toContain(own.id);

      const production = await createTenant(stack.db, { environment: 'production' });
      const prod = await call(stack.apiUrl, 'GET', '/v3/lab_test/lab_account', { key: production.apiKey });
      const prodIds = prod.body.data.map((account: { id: string }) => account.id);
      expect(prodIds).toEqual(expect.arrayContaining([1, 2, 3, 4, 5].map((n) => `1ab0acc0-0000-4000-8000-00000000000${n}`)));
      expect(prodIds.filter((id: string) => id.startsWith('1ab0acc0-0000-4000-8000-0000000001'))).toEqual([]);

      const allowlisted = await insertAccount({ teamId: null, labId: US_BIOTEK, teamIdAllowlist: [owner.teamId], delegatedFlow: 'not_delegated' });
      const forOwner = await call(stack.apiUrl, 'GET', `/v3/lab_test/lab_account?lab_account_id=${allowlisted.id}`, { key: owner.apiKey });
      expect(forOwner.body.data).toHaveLength(1);
      const forOther = await call(stack.apiUrl, 'GET', `/v3/lab_test/lab_account?lab_account_id=${allowlisted.id}`, { key: other.apiKey });
      expect(forOther.body.data).toHaveLength(0);
    });
  });

  it('answers odd input with a 4xx or an empty result, never a 5xx', async () => {
    const huge = '99999999999';
    const requests: Array<[string, string, unknown?]> = [
      ['GET', `/v3/lab_tests/markers?lab_id=${huge}`],
      ['GET', `/v3/lab_tests/markers?lab_id=-1&name=%25_%5C`],
      ['GET', `/v3/lab_tests/markers?page=9007199254740991`],
      ['GET', `/v3/lab_tests/markers?a_la_carte_enabled=maybe`],
      ['GET', `/v3/lab_tests?marker_ids=${huge}`],
      ['GET', `/v3/lab_tests?marker_ids=abc`],
      ['GET', `/v3/lab_tests?provider_ids=x&provider_ids=y`],
      ['GET', `/v3/lab_tests/${huge}/markers/10001`],
      ['GET', `/v3/lab_test?next_cursor=${Buffer.from(JSON.stringify({ o: 1e20 })).toString('base64url')}`],
      ['GET', '/v3/lab_test?lab_test_limit=0'],
      ['GET', `/v3/lab_test/lab_account?lab_account_id=nope`],
      ['POST', '/v3/lab_tests', { name: 'x', method: 'walk_in_test', description: '', marker_ids: [Number(huge)] }],
      ['POST', '/v3/lab_tests', { name: 'x', method: 'walk_in_test', description: '', marker_ids: [1.5] }],
      ['POST', '/v3/lab_tests', [1, 2]],
      ['POST', '/v3/lab_tests/list_order_set_markers', {}],
      ['POST', '/v3/lab_tests/list_order_set_markers', { add_on: { marker_ids: [Number(huge)] } }],
      ['PATCH', `/v3/lab_tests/${randomUUID()}`, { name: '' }],
    ];
    for (const [method, path, body] of requests) {
      const response = await api(method, path, body === undefined ? {} : { body });
      expect(`${method} ${path} → ${response.status}`).toMatch(/→ [24]\d\d$/);
      if (response.status >= 400) expect(response.body.detail).toBeDefined();
    }
  });

  describe('services for the order module', () => {
    let accounts: LabAccountsService;
    let labTests: OrderableLabTestsService;
    beforeAll(() => {
      accounts = stack.api.get(LabAccountsService);
      labTests = stack.api.get(OrderableLabTestsService);
    });

    it('findOrderable: a visible active test with its lab, markers and expanded biomarkers', async () => {
      const wellness = await labTests.findOrderable(principal(tenant), SEED_TEST.wellness);
      expect(wellness.lab.slug).toBe('sonora_quest');
      expect(wellness.markers).toHaveLength(4);
      // CMP 16 + CBC 11 + lipid 5 + TSH 1, no overlaps.
      expect(wellness.biomarkers).toHaveLength(33);
      expect(wellness.biomarkers.every((marker) => marker.type === 'biomarker' && marker.labId === 4)).toBe(true);
      expect(wellness.view.id).toBe(SEED_TEST.wellness);

      await expect(labTests.findOrderable(principal(tenant), randomUUID())).rejects.toMatchObject({ status: 404 });
      await expect422(labTests.findOrderable(principal(tenant), SEED_TEST.retiredIron), ['body', 'lab_test_id']);
      const created = await client.labTests.create({ name: 'Private', method: 'walk_in_test', description: '', markerIds: [MARKER.questGlucose] });
      await expect(labTests.findOrderable(principal(other), created.id)).rejects.toMatchObject({ status: 404 });
    });

    it('checkMarkersBelongToLab lists the foreign markers', async () => {
      expect((await labTests.checkMarkersBelongToLab([MARKER.questGlucose, MARKER.questCmp], QUEST)).map((marker) => marker.id)).toEqual([
        MARKER.questGlucose,
        MARKER.questCmp,
      ]);
      const error = await expect422(labTests.checkMarkersBelongToLab([MARKER.questGlucose, MARKER.labcorpGlucose, 424242], QUEST), ['body', 'marker_ids']);
      expect(error.issues[0].ctx).toEqual({ foreign_marker_ids: [MARKER.labcorpGlucose, 424242], lab_id: QUEST });
    });

    it('resolveForOrder: own account first, else the platform account; explicit ids are checked', async () => {
      const team = await createTenant(stack.db);
      const scope = principal(team);
      expect((await accounts.resolveForOrder(scope, { labId: QUEST })).id).toBe(ACCOUNT.questPlatform);

      const own = await insertAccount({ teamId: team.teamId, labId: QUEST, delegatedFlow: 'fully_delegated' });
      expect((await accounts.resolveForOrder(scope, { labId: QUEST })).id).toBe(own.id);
      // Recreating with INCORRECT_LAB: a fresh account.
      expect((await accounts.resolveForOrder(scope, { labId: QUEST, excludeAccountId: own.id })).id).toBe(ACCOUNT.questPlatform);

      expect((await accounts.resolveForOrder(scope, { labId: QUEST, labAccountId: ACCOUNT.questOrderDelegated })).id).toBe(ACCOUNT.questOrderDelegated);
      await expect422(accounts.resolveForOrder(scope, { labId: QUEST, labAccountId: ACCOUNT.labcorpFullyDelegated }), ['body', 'lab_account_id']);
      await expect422(accounts.resolveForOrder(scope, { labId: 4, labAccountId: ACCOUNT.sonoraPending }), ['body', 'lab_account_id']);
      expect((await accounts.resolveForOrder(scope, { labId: 4, labAccountId: ACCOUNT.sonoraPending, allowPending: true })).status).toBe('pending');
      await expect422(accounts.resolveForOrder(scope, { labId: QUEST, labAccountId: ACCOUNT.questSuspended, allowPending: true }), ['body', 'lab_account_id']);
      await expect422(accounts.resolveForOrder(principal(other), { labId: QUEST, labAccountId: own.id }), ['body', 'lab_account_id']);
      await expect422(accounts.resolveForOrder(scope, { labId: QUEST, labAccountId: own.id, excludeAccountId: own.id }), ['body', 'lab_account_id']);
      // The seeded delegated sandbox accounts are never picked automatically.
      expect((await accounts.resolveForOrder(principal(other), { labId: 3 })).delegatedFlow).toBe('not_delegated');
    });

    it('requiresPhysician: order/fully delegated accounts at the four delegated-account labs after enforcement', () => {
      const after = new Date('2027-01-01T00:00:00Z');
      const before = new Date('2026-01-01T00:00:00Z');
      expect(accounts.requiresPhysician({ delegatedFlow: 'order_delegated' }, 'quest', after)).toBe(true);
      expect(accounts.requiresPhysician({ delegatedFlow: 'fully_delegated' }, 'sonora_quest', after)).toBe(true);
      expect(accounts.requiresPhysician({ delegatedFlow: 'order_delegated' }, 'quest', before)).toBe(false);
      expect(accounts.requiresPhysician({ delegatedFlow: 'result_delegated' }, 'quest', after)).toBe(false);
      expect(accounts.requiresPhysician({ delegatedFlow: 'not_delegated' }, 'labcorp', after)).toBe(false);
      expect(accounts.requiresPhysician({ delegatedFlow: 'fully_delegated' }, 'us_biotek', after)).toBe(false);
    });
  });
});
