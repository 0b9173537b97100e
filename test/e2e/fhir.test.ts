import { Client } from 'fhir-kit-client';
import type { Bundle, CapabilityStatement, DiagnosticReport, Observation, OperationOutcome, Patient, Resource, ServiceRequest } from '@medplum/fhirtypes';
import { fhirErrors } from '../helpers/fhir-validator';
import { createUser, orderBody, orderReaches, patientAddress, someStartDate, startOrderStack, THYROID_AT_HOME } from '../helpers/orders';
import { call, createTenant, type Tenant, type TestStack } from '../helpers/stack';

/**
 * The FHIR R4 read API as a consumer uses it: through fhir-kit-client (an external FHIR client),
 * against the whole stack. Every resource any test receives is kept and validated at the end
 * with @medplum/core's validator (test/helpers/fhir-validator.ts): zero errors.
 */
describe('FHIR R4 API (/fhir/R4)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let other: Tenant;
  let userId: string;
  let orderId: string;
  let appointmentId: string;
  let atHomeId: string;
  let appointmentStart: string;
  let fhir: Client;
  const seen: Resource[] = [];
  const NPI = '1234567893';
  const day = '2026-11-20';

  /** fhir-kit-client types its answers loosely (FhirResource); the FHIR API's are @medplum/fhirtypes resources. */
  const as = <T>(answer: Promise<unknown>) => answer as Promise<T>;
  const keep = <T extends Resource>(resource: T): T => {
    seen.push(resource);
    if (resource.resourceType === 'Bundle') for (const entry of (resource as Bundle).entry ?? []) if (entry.resource) seen.push(entry.resource);
    return resource;
  };
  const search = async (resourceType: string, searchParams: Record<string, string | string[]>) =>
    keep(await as<Bundle>(fhir.search({ resourceType, searchParams })));
  const resourcesOf = <T extends Resource = Resource>(bundle: Bundle, mode: 'match' | 'include' = 'match') =>
    (bundle.entry ?? []).filter((entry) => entry.search?.mode === mode).map((entry) => entry.resource as T);
  const idsOf = (bundle: Bundle, mode: 'match' | 'include' = 'match') => resourcesOf(bundle, mode).map((resource) => resource.id);
  /** The status and OperationOutcome a refused request answers with. */
  const refusal = async (request: Promise<unknown>) => {
    try {
      await request;
    } catch (error) {
      const { status, data } = (error as { response: { status: number; data: OperationOutcome | string } }).response;
      return { status, outcome: (typeof data === 'string' ? JSON.parse(data) : data) as OperationOutcome };
    }
    throw new Error('expected a refusal');
  };
  const ingest = async (resource: string, body: object) => {
    const response = await call(stack.apiUrl, 'POST', `/v2/timeseries/${userId}/${resource}`, { key: tenant.apiKey, body });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    ({ stack, tenant, userId } = await startOrderStack());
    other = await createTenant(stack.db);
    fhir = new Client({ baseUrl: `${stack.apiUrl}/fhir/R4`, customHeaders: { 'x-service-api-key': tenant.apiKey } });
    const info = await call(stack.apiUrl, 'PATCH', `/v2/user/${userId}/info`, {
      key: tenant.apiKey,
      body: {
        first_name: 'Marguerite',
        last_name: 'Okonkwo',
        email: 'marguerite@example.com',
        phone_number: '+14155550123',
        gender: 'female',
        dob: '1986-04-12',
        address: { first_line: '1 Market St', second_line: 'Suite 5', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' },
      },
    });
    expect(info.status).toBe(200);
    const insurance = await call(stack.apiUrl, 'POST', `/v2/user/${userId}/insurance`, {
      key: tenant.apiKey,
      body: {
        payor_code: '60054',
        member_id: 'MEMBER-FHIR-1',
        group_id: 'GRP-9',
        relationship: 'Self',
        is_primary: true,
        insured: {
          first_name: 'Marguerite',
          last_name: 'Okonkwo',
          gender: 'female',
          dob: '1986-04-12',
          email: 'marguerite@example.com',
          phone_number: '+14155550123',
          address: { first_line: '1 Market St', country: 'US', zip: '94105', city: 'San Francisco', state: 'CA' },
        },
      },
    });
    expect(insurance.status).toBe(200);
    const created = await call(stack.apiUrl, 'POST', '/v3/order', {
      key: tenant.apiKey,
      body: orderBody(userId, { physician: { first_name: 'Ada', last_name: 'Lovelace', npi: NPI } }),
    });
    expect(created.status).toBe(200);
    orderId = created.body.order.id;
    await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey, body: {} });
    await orderReaches(stack, tenant, orderId, 'completed');

    // An at-home order with its draw booked: an Appointment.
    const atHome = await call(stack.apiUrl, 'POST', '/v3/order', {
      key: tenant.apiKey,
      body: orderBody(userId, {
        lab_test_id: THYROID_AT_HOME,
        patient_address: { ...patientAddress(), first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip: '85004' },
      }),
    });
    expect(atHome.status).toBe(200);
    atHomeId = atHome.body.order.id;
    await orderReaches(stack, tenant, atHomeId, 'appointment_pending');
    const availability = await call(stack.apiUrl, 'POST', `/v3/order/phlebotomy/appointment/availability?start_date=${someStartDate()}`, {
      key: tenant.apiKey,
      body: { first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip_code: '85004' },
    });
    expect(availability.status).toBe(200);
    const [slot] = availability.body.slots.flatMap((slotDay: { slots: Array<{ booking_key: string; start: string }> }) => slotDay.slots);
    const booked = await call(stack.apiUrl, 'POST', `/v3/order/${atHome.body.order.id}/phlebotomy/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slot.booking_key },
    });
    expect(booked.status).toBe(200);
    appointmentId = booked.body.id;
    appointmentStart = new Date(slot.start).toISOString();

    // Five heart rates a minute apart, and one of each other kind.
    await ingest('heartrate', {
      provider: 'oura',
      source_type: 'ring',
      data: [0, 1, 2, 3, 4].map((m) => ({ timestamp: `${day}T08:0${m}:00Z`, value: 60 + m })),
    });
    await ingest('blood_pressure', { provider: 'withings', data: [{ timestamp: `${day}T09:00:00Z`, systolic: 121, diastolic: 79 }] });
    await ingest('body_weight', { provider: 'withings', data: [{ timestamp: `${day}T07:00:00Z`, value: 70.5 }] });
    await ingest('blood_oxygen', { provider: 'oura', data: [{ timestamp: `${day}T03:00:00Z`, value: 97 }] });
    await ingest('glucose', { provider: 'dexcom', data: [{ timestamp: `${day}T10:00:00Z`, value: 5.4 }] });
    await ingest('steps', { provider: 'oura', data: [{ start: `${day}T12:00:00Z`, end: `${day}T13:00:00Z`, value: 4200 }] });
    const sleep = {
      calendar_date: day,
      bedtime_start: '2026-11-19T23:00:00Z',
      bedtime_stop: `${day}T07:00:00Z`,
      duration: 28_800,
      total: 27_000,
      awake: 1_800,
      light: 14_000,
      rem: 6_000,
      deep: 7_000,
    };
    const slept = await call(stack.apiUrl, 'POST', `/v2/summary/sleep/${userId}`, {
      key: tenant.apiKey,
      body: { provider: 'oura', source_type: 'ring', data: [sleep] },
    });
    expect(slept.status).toBe(200);
  }, 120_000);
  afterAll(() => stack?.close());

  it('serves a CapabilityStatement listing exactly the types, interactions and parameters served', async () => {
    const statement = keep(await as<CapabilityStatement>(fhir.capabilityStatement()));
    expect(statement).toMatchObject({ resourceType: 'CapabilityStatement', fhirVersion: '4.0.1', kind: 'instance', format: ['application/fhir+json'] });
    const resources = statement.rest![0].resource!;
    expect(resources.map((resource) => resource.type).sort()).toEqual(
      ['Appointment', 'Coverage', 'DiagnosticReport', 'Group', 'Observation', 'Patient', 'Practitioner', 'ServiceRequest', 'Specimen'].sort(),
    );
    for (const resource of resources.filter((served) => served.type !== 'Group')) {
      expect(resource.interaction!.map((interaction) => interaction.code)).toEqual(['read', 'search-type']);
    }
    // The team, as a Group, only for the Bulk Data kick-off.
    expect(resources.find((resource) => resource.type === 'Group')).toMatchObject({ operation: [{ name: 'export' }] });
    expect(resources.find((resource) => resource.type === 'Group')!.interaction).toBeUndefined();
    const observation = resources.find((resource) => resource.type === 'Observation')!;
    expect(observation.searchParam!.map((parameter) => parameter.name).sort()).toEqual([
      '_count',
      '_id',
      '_lastUpdated',
      'category',
      'code',
      'date',
      'patient',
      'status',
      'subject',
    ]);
    expect(resources.find((resource) => resource.type === 'DiagnosticReport')!.searchInclude).toEqual(['DiagnosticReport:result']);
    expect(resources.find((resource) => resource.type === 'Patient')!.operation).toEqual([
      expect.objectContaining({ name: 'everything' }),
      expect.objectContaining({ name: 'export' }),
    ]);
    expect(resources.find((resource) => resource.type === 'Patient')!.searchRevInclude).toEqual(['Observation:subject', 'Observation:patient']);
    expect(resources.find((resource) => resource.type === 'Observation')!.searchRevInclude).toEqual(['DiagnosticReport:result']);
  });

  it("answers application/fhir+json; without a key 401 and with another team's key 404, as OperationOutcome", async () => {
    const own = await fetch(`${stack.apiUrl}/fhir/R4/Patient/${userId}`, { headers: { 'x-service-api-key': tenant.apiKey } });
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toMatch(/^application\/fhir\+json/);

    const anonymous = await refusal(new Client({ baseUrl: `${stack.apiUrl}/fhir/R4` }).read({ resourceType: 'Patient', id: userId }));
    expect(anonymous.status).toBe(401);
    expect(anonymous.outcome).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'login' }] });

    const stranger = new Client({ baseUrl: `${stack.apiUrl}/fhir/R4`, customHeaders: { 'x-service-api-key': other.apiKey } });
    for (const [resourceType, id] of [
      ['Patient', userId],
      ['ServiceRequest', orderId],
      ['DiagnosticReport', orderId],
      ['Observation', `${orderId}-0`],
      ['Practitioner', NPI],
    ]) {
      const refused = await refusal(stranger.read({ resourceType, id }));
      expect(refused).toMatchObject({ status: 404, outcome: { resourceType: 'OperationOutcome', issue: [{ code: 'not-found' }] } });
      keep(refused.outcome);
    }
    const theirs = keep(await as<Bundle>(stranger.search({ resourceType: 'Observation', searchParams: { patient: userId } })));
    expect(theirs.entry).toEqual([]);
  });

  it('refuses what it does not serve with 400 or 404 OperationOutcome', async () => {
    const unknownParameter = await refusal(fhir.search({ resourceType: 'Observation', searchParams: { 'value-quantity': 'gt5' } }));
    expect(unknownParameter).toMatchObject({ status: 400, outcome: { issue: [{ code: 'not-supported', expression: ['value-quantity'] }] } });
    const badDate = await refusal(fhir.search({ resourceType: 'Observation', searchParams: { date: 'yesterday' } }));
    expect(badDate).toMatchObject({ status: 400, outcome: { issue: [{ code: 'invalid', expression: ['date'] }] } });
    const badInclude = await refusal(fhir.search({ resourceType: 'Observation', searchParams: { _include: 'Observation:subject' } }));
    expect(badInclude.status).toBe(400);
    const badRevInclude = await refusal(fhir.search({ resourceType: 'DiagnosticReport', searchParams: { _revinclude: 'Observation:subject' } }));
    expect(badRevInclude).toMatchObject({ status: 400, outcome: { issue: [{ expression: ['_revinclude'] }] } });
    keep(badRevInclude.outcome);
    const badCursor = await refusal(fhir.search({ resourceType: 'Patient', searchParams: { _cursor: 'not-a-cursor' } }));
    expect(badCursor.status).toBe(400);
    const unknownType = await refusal(fhir.read({ resourceType: 'Medication', id: 'x' }));
    expect(unknownType).toMatchObject({ status: 404, outcome: { issue: [{ code: 'not-supported' }] } });
    const missing = await refusal(fhir.read({ resourceType: 'Patient', id: '00000000-0000-4000-8000-000000000000' }));
    expect(missing).toMatchObject({ status: 404, outcome: { issue: [{ code: 'not-found' }] } });
    for (const refused of [unknownParameter, badDate, badInclude, badCursor, unknownType, missing]) keep(refused.outcome);
  });

  it('reads a Patient with its demographics and finds it by identifier, _id and _lastUpdated', async () => {
    const patient = keep(await as<Patient>(fhir.read({ resourceType: 'Patient', id: userId })));
    expect(patient).toMatchObject({
      resourceType: 'Patient',
      id: userId,
      name: [{ family: 'Okonkwo', given: ['Marguerite'] }],
      gender: 'female',
      birthDate: '1986-04-12',
      address: [{ line: ['1 Market St', 'Suite 5'], city: 'San Francisco', state: 'CA', postalCode: '94105' }],
    });
    const clientUserId = patient.identifier![0];
    expect(idsOf(await search('Patient', { identifier: `${clientUserId.system}|${clientUserId.value}` }))).toEqual([userId]);
    expect(idsOf(await search('Patient', { _id: userId }))).toEqual([userId]);
    expect(idsOf(await search('Patient', { _id: userId, _lastUpdated: 'ge2020-01-01' }))).toEqual([userId]);
    expect(idsOf(await search('Patient', { _id: userId, _lastUpdated: 'lt2020-01-01' }))).toEqual([]);
  });

  it('serves the order as a ServiceRequest searchable by patient, status, code and authored', async () => {
    const request = keep(await as<ServiceRequest>(fhir.read({ resourceType: 'ServiceRequest', id: orderId })));
    expect(request).toMatchObject({
      status: 'completed',
      intent: 'order',
      subject: { reference: `Patient/${userId}` },
      requester: { reference: `Practitioner/${NPI}` },
    });
    const code = request.code!.coding![0];
    expect(idsOf(await search('ServiceRequest', { patient: `Patient/${userId}`, status: 'completed' }))).toEqual([orderId]);
    expect(idsOf(await search('ServiceRequest', { subject: userId, status: 'active' }))).toEqual([atHomeId]);
    expect(idsOf(await search('ServiceRequest', { subject: userId, status: 'revoked' }))).toEqual([]);
    expect(idsOf(await search('ServiceRequest', { patient: userId, code: `${code.system}|${code.code}` }))).toEqual([orderId]);
    expect(idsOf(await search('ServiceRequest', { patient: userId, code: `${code.system}|00000000-0000-4000-8000-000000000000` }))).toEqual([]);
    const today = request.authoredOn!.slice(0, 10);
    expect(idsOf(await search('ServiceRequest', { patient: userId, authored: [`ge${today}`, `lt2100`] }))).toEqual([orderId, atHomeId]);
    expect(idsOf(await search('ServiceRequest', { patient: userId, authored: `lt${today}` }))).toEqual([]);
  });

  it('serves the results as a LAB DiagnosticReport with the result PDF, including its Observations', async () => {
    const bundle = await search('DiagnosticReport', {
      patient: userId,
      category: 'http://terminology.hl7.org/CodeSystem/v2-0074|LAB',
      _include: 'DiagnosticReport:result',
    });
    const [report] = resourcesOf<DiagnosticReport>(bundle);
    expect(report).toMatchObject({ id: orderId, status: 'final', basedOn: [{ reference: `ServiceRequest/${orderId}` }] });
    expect(report.category![0].coding![0]).toMatchObject({ code: 'LAB' });
    const included = resourcesOf<Observation>(bundle, 'include');
    expect(included.length).toBeGreaterThan(0);
    expect(included.map((observation) => `Observation/${observation.id}`)).toEqual(report.result!.map((reference) => reference.reference));

    const form = report.presentedForm![0];
    expect(form.contentType).toBe('application/pdf');
    const pdf = await fetch(form.url!, { headers: { 'x-service-api-key': tenant.apiKey } });
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    expect(idsOf(await search('DiagnosticReport', { patient: userId, category: 'LAB', code: 'http://loinc.org|11502-2', status: 'final' }))).toEqual([orderId]);
    expect(idsOf(await search('DiagnosticReport', { patient: userId, category: 'RAD' }))).toEqual([]);
    expect(idsOf(await search('DiagnosticReport', { patient: userId, date: 'lt2000' }))).toEqual([]);
    expect(idsOf(await search('DiagnosticReport', { patient: userId }), 'include')).toEqual([]);
  });

  it("_revinclude: a patient's Observations (bounded), and the lab report listing an Observation", async () => {
    const patients = await search('Patient', { _id: userId, _revinclude: 'Observation:subject' });
    expect(idsOf(patients)).toEqual([userId]);
    const observations = resourcesOf<Observation>(patients, 'include');
    expect(observations.length).toBeGreaterThan(0);
    for (const observation of observations) expect(observation.subject!.reference).toBe(`Patient/${userId}`);
    expect(observations.map((observation) => observation.id)).toEqual(idsOf(await search('Observation', { patient: userId, _count: '100' })));

    const labResults = await search('Observation', { patient: userId, category: 'laboratory', _revinclude: 'DiagnosticReport:result' });
    // The order's results (glucose readings are laboratory Observations too, with no report).
    const results = idsOf(labResults).filter((id) => id!.startsWith(`${orderId}-`));
    expect(results.length).toBeGreaterThan(0);
    const [report, ...more] = resourcesOf<DiagnosticReport>(labResults, 'include');
    expect(more).toEqual([]);
    expect(report).toMatchObject({ resourceType: 'DiagnosticReport', id: orderId });
    for (const id of results) expect(report.result!.map((reference) => reference.reference)).toContain(`Observation/${id}`);
    const wearables = await search('Observation', { patient: userId, category: 'vital-signs', _revinclude: 'DiagnosticReport:result' });
    expect(idsOf(wearables, 'include')).toEqual([]);
  });

  it('serves each lab result as an Observation: LOINC, UCUM quantity or string, reference range, v3 interpretation', async () => {
    const bundle = await search('Observation', { patient: userId, category: 'laboratory', _count: '1000' });
    const all = resourcesOf<Observation>(bundle);
    // A result the lab could not give (the sandbox drops some by chance) is cancelled, with why.
    for (const missing of all.filter((result) => result.status === 'cancelled')) {
      expect(missing.dataAbsentReason!.coding![0].code).toBe('not-performed');
      expect(missing.valueQuantity ?? missing.valueString).toBeUndefined();
    }
    const results = all.filter((result) => result.status !== 'cancelled');
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) {
      expect(result).toMatchObject({ status: 'final', category: [{ coding: [{ code: 'laboratory' }] }], subject: { reference: `Patient/${userId}` } });
      expect(result.valueQuantity ?? result.valueString).toBeDefined();
      if (result.valueQuantity?.code) expect(result.valueQuantity.system).toBe('http://unitsofmeasure.org');
      for (const interpretation of result.interpretation ?? []) {
        expect(interpretation.coding![0].system).toBe('http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation');
        expect(['N', 'A', 'AA', 'H', 'HH', 'L', 'LL']).toContain(interpretation.coding![0].code);
      }
    }
    const withLoinc = results.find((result) => result.code.coding?.some((coding) => coding.system === 'http://loinc.org'))!;
    expect(withLoinc).toBeDefined();
    expect(results.some((result) => result.referenceRange?.length)).toBe(true);
    const loinc = withLoinc.code.coding!.find((coding) => coding.system === 'http://loinc.org')!.code!;
    const byCode = await search('Observation', { patient: userId, code: `http://loinc.org|${loinc}` });
    expect(idsOf(byCode)).toContain(withLoinc.id);
    expect(resourcesOf<Observation>(byCode).every((result) => result.code.coding!.some((coding) => coding.code === loinc))).toBe(true);
    expect(idsOf(await search('Observation', { patient: userId, category: 'laboratory', status: 'preliminary' }))).toEqual([]);
    expect(keep(await as<Observation>(fhir.read({ resourceType: 'Observation', id: withLoinc.id! })))).toEqual(withLoinc);
  });

  it('serves wearable measurements as vital-signs, activity and laboratory Observations, searchable by code and date prefixes', async () => {
    const vitals = resourcesOf<Observation>(await search('Observation', { patient: userId, category: 'vital-signs' }));
    const codes = vitals.map((observation) => observation.code.coding![0].code);
    expect(new Set(codes)).toEqual(new Set(['8867-4', '85354-9', '29463-7', '2708-6']));
    const pressure = vitals.find((observation) => observation.code.coding![0].code === '85354-9')!;
    expect(pressure.component!.map((component) => [component.code.coding![0].code, component.valueQuantity!.value, component.valueQuantity!.code])).toEqual([
      ['8480-6', 121, 'mm[Hg]'],
      ['8462-4', 79, 'mm[Hg]'],
    ]);
    expect(pressure.device).toEqual({ display: expect.stringContaining('withings') });
    const [steps, sleep] = resourcesOf<Observation>(await search('Observation', { patient: userId, category: 'activity' }));
    expect(sleep).toMatchObject({
      code: { coding: [{ code: '93832-4' }] },
      valueQuantity: { value: 7.5, code: 'h' },
      effectivePeriod: { start: '2026-11-19T23:00:00.000Z' },
    });
    expect(idsOf(await search('Observation', { patient: userId, code: '93832-4', date: `lt${day}` }))).toEqual([sleep.id]);
    expect(idsOf(await search('Observation', { patient: userId, code: '93832-4', date: `ge${day}` }))).toEqual([]);
    expect(keep(await as<Observation>(fhir.read({ resourceType: 'Observation', id: sleep.id! })))).toEqual(sleep);
    expect(steps).toMatchObject({
      code: { coding: [{ code: '55423-8' }] },
      valueQuantity: { value: 4200 },
      effectivePeriod: { start: `${day}T12:00:00.000Z` },
    });
    const [glucose] = resourcesOf<Observation>(await search('Observation', { patient: userId, code: 'http://loinc.org|15074-8' }));
    expect(glucose).toMatchObject({ valueQuantity: { value: 5.4, code: 'mmol/L' } });

    const heart = (date: string | string[]) => search('Observation', { patient: userId, code: 'http://loinc.org|8867-4', date });
    const values = async (date: string | string[]) => resourcesOf<Observation>(await heart(date)).map((observation) => observation.valueQuantity!.value);
    expect(await values(`eq${day}`)).toEqual([60, 61, 62, 63, 64]);
    expect(await values(`ge${day}T08:02:00Z`)).toEqual([62, 63, 64]);
    expect(await values(`gt${day}T08:02:00Z`)).toEqual([63, 64]);
    expect(await values(`lt${day}T08:02:00Z`)).toEqual([60, 61]);
    expect(await values(`le${day}T08:02:00Z`)).toEqual([60, 61, 62]);
    expect(await values([`ge${day}T08:01:00Z`, `lt${day}T08:03:00Z`])).toEqual([61, 62]);
    expect(await values(`eq${day}T08:04`)).toEqual([64]);
    expect(await values('2026-10')).toEqual([]);
    const one = resourcesOf<Observation>(await heart(`eq${day}T08:04`))[0];
    expect(keep(await as<Observation>(fhir.read({ resourceType: 'Observation', id: one.id! })))).toEqual(one);
    expect(idsOf(await search('Observation', { _id: one.id!, _lastUpdated: 'ge2020' }))).toEqual([one.id]);
  });

  it('pages with _count and next links, each entry once, in order, across lab results and wearables', async () => {
    const all = await search('Observation', { patient: userId, _count: '1000' });
    const everyId = idsOf(all);
    expect(all.link!.find((link) => link.relation === 'next')).toBeUndefined();
    const paged: string[] = [];
    let page: Bundle | undefined = await search('Observation', { patient: userId, _count: '3' });
    while (page) {
      expect(page.entry!.length).toBeLessThanOrEqual(3);
      paged.push(...idsOf(page).map(String));
      page = page.link?.some((link) => link.relation === 'next') ? keep(await as<Bundle>(fhir.nextPage({ bundle: page as never })!)) : undefined;
    }
    expect(paged).toEqual(everyId);
    expect(everyId.length).toBeGreaterThan(10);

    const heartPages: number[][] = [];
    let heart: Bundle | undefined = await search('Observation', { patient: userId, code: '8867-4', _count: '2' });
    while (heart) {
      heartPages.push(resourcesOf<Observation>(heart).map((observation) => observation.valueQuantity!.value!));
      heart = heart.link?.some((link) => link.relation === 'next') ? keep(await as<Bundle>(fhir.nextPage({ bundle: heart as never })!)) : undefined;
    }
    expect(heartPages.flat()).toEqual([60, 61, 62, 63, 64]);
    expect(heartPages[0]).toEqual([60, 61]);
  });

  it('serves Coverage, Practitioner and Specimen', async () => {
    const [coverage] = resourcesOf(await search('Coverage', { patient: userId }));
    expect(coverage).toMatchObject({
      resourceType: 'Coverage',
      status: 'active',
      subscriberId: 'MEMBER-FHIR-1',
      beneficiary: { reference: `Patient/${userId}` },
      payor: [{ display: 'Aetna' }],
    });
    expect(keep(await as<Resource>(fhir.read({ resourceType: 'Coverage', id: coverage.id! })))).toEqual(coverage);
    const practitioner = keep(await as<Resource>(fhir.read({ resourceType: 'Practitioner', id: NPI })));
    expect(practitioner).toMatchObject({
      identifier: [{ system: 'http://hl7.org/fhir/sid/us-npi', value: NPI }],
      name: [{ family: 'Lovelace', given: ['Ada'] }],
    });
    expect(idsOf(await search('Practitioner', { identifier: `http://hl7.org/fhir/sid/us-npi|${NPI}` }))).toEqual([NPI]);
    const [specimen] = resourcesOf(await search('Specimen', { patient: userId }));
    expect(specimen).toMatchObject({ resourceType: 'Specimen', id: orderId, request: [{ reference: `ServiceRequest/${orderId}` }] });
  });

  it('serves the draw appointment, searchable by patient, status and date', async () => {
    const appointment = keep(await as<Resource & { status: string; start: string }>(fhir.read({ resourceType: 'Appointment', id: appointmentId })));
    expect(appointment).toMatchObject({
      status: 'booked',
      start: appointmentStart,
      participant: expect.arrayContaining([expect.objectContaining({ actor: { reference: `Patient/${userId}` } })]),
    });
    expect(idsOf(await search('Appointment', { patient: userId, status: 'booked' }))).toEqual([appointmentId]);
    expect(idsOf(await search('Appointment', { actor: `Patient/${userId}`, status: 'cancelled' }))).toEqual([]);
    expect(idsOf(await search('Appointment', { patient: userId, date: `ge${appointmentStart.slice(0, 10)}` }))).toEqual([appointmentId]);
    expect(idsOf(await search('Appointment', { patient: userId, date: `lt${appointmentStart.slice(0, 10)}` }))).toEqual([]);
  });

  it('answers Patient/{id}/$everything with every resource about the patient', async () => {
    const bundle = keep(await as<Bundle>(fhir.operation({ resourceType: 'Patient', id: userId, name: '$everything', method: 'GET' })));
    const types = new Set(resourcesOf(bundle).map((resource) => resource.resourceType));
    expect(types).toEqual(new Set(['Patient', 'ServiceRequest', 'Specimen', 'DiagnosticReport', 'Observation', 'Coverage', 'Practitioner', 'Appointment']));
    const observations = resourcesOf<Observation>(bundle).filter((resource) => resource.resourceType === 'Observation');
    expect(observations.length).toBe(idsOf(await search('Observation', { patient: userId, _count: '1000' })).length);
    const since = await refusal(fhir.request(`Patient/${userId}/$everything?_since=2026-01-01`));
    expect(since).toMatchObject({ status: 400, outcome: { issue: [{ code: 'not-supported', expression: ['_since'] }] } });
    const anotherUser = await createUser(stack, tenant);
    const empty = keep(await as<Bundle>(fhir.operation({ resourceType: 'Patient', id: anotherUser, name: '$everything', method: 'GET' })));
    expect(resourcesOf(empty).map((resource) => resource.resourceType)).toEqual(['Patient']);
  });

  it('returned only valid FHIR R4: every resource above, validated with @medplum/core (run last)', () => {
    const types = new Set(seen.map((resource) => resource.resourceType));
    const errors = seen.flatMap((resource) => fhirErrors(resource).map((error) => `${resource.resourceType}/${resource.id}: ${error}`));
    expect(errors).toEqual([]);
    expect([...types].sort()).toEqual(
      [
        'Appointment',
        'Bundle',
        'CapabilityStatement',
        'Coverage',
        'DiagnosticReport',
        'Observation',
        'OperationOutcome',
        'Patient',
        'Practitioner',
        'ServiceRequest',
        'Specimen',
      ].sort(),
    );
  });
});
