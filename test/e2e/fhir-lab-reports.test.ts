import { Client } from 'fhir-kit-client';
import { VitalClient } from '@tryvital/vital-node';
import type { Bundle, DiagnosticReport, Observation, OperationOutcome, Resource } from '@medplum/fhirtypes';
import { eventually } from '../helpers/eventually';
import { bulkClient } from '../helpers/fhir-export';
import { fhirErrors } from '../helpers/fhir-validator';
import { textReportPdf } from '../helpers/lab-report-files';
import { createUser, orderBody, orderReaches, startOrderStack } from '../helpers/orders';
import { call, createTenant, type Tenant, type TestStack } from '../helpers/stack';

/**
 * A parsed lab report through the FHIR API as a consumer reads it: a report uploaded and parsed
 * to completion is its own DiagnosticReport (`lr-{job id}`) with its results as Observations
 * (`lr-{job id}-{n}`), read, searched beside the orders' reports and results (one keyset across
 * both), included, in `$everything` and in the bulk export; a job waiting for review is not
 * served. Every resource received is validated with @medplum/core (0 errors).
 */
describe('FHIR R4: parsed lab reports', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let other: Tenant;
  let orderUserId: string;
  let orderId: string;
  let userId: string;
  let jobId: string;
  let pendingJobId: string;
  let fhir: Client;
  const seen: Resource[] = [];

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
  /** Every page of a search, followed through its next links: the ids of each page. */
  const pages = async (resourceType: string, searchParams: Record<string, string>) => {
    const found: Array<Array<string | undefined>> = [];
    let page: Bundle | undefined = await search(resourceType, searchParams);
    while (page) {
      found.push(idsOf(page));
      page = page.link?.some((link) => link.relation === 'next') ? keep(await as<Bundle>(fhir.nextPage({ bundle: page as never })!)) : undefined;
    }
    return found;
  };
  const statusOf = async (request: Promise<unknown>) => {
    try {
      await request;
    } catch (error) {
      const { status, data } = (error as { response: { status: number; data: OperationOutcome | string } }).response;
      keep((typeof data === 'string' ? JSON.parse(data) : data) as OperationOutcome);
      return status;
    }
    return 200;
  };
  const upload = async (patient?: string) => {
    const sdk = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
    const created = await sdk.labReport.parserCreateJob({ data: await textReportPdf({ patient }), filename: 'report.pdf' }, { userId });
    return created.id;
  };
  const jobEnds = (id: string) =>
    eventually(
      async () => {
        const job = await call(stack.apiUrl, 'GET', `/lab_report/v1/parser/job/${id}`, { key: tenant.apiKey });
        return ['completed', 'pending_review', 'failed'].includes(job.body.status) ? job.body.status : undefined;
      },
      `job ${id} done`,
      120_000,
      250,
    );

  beforeAll(async () => {
    ({
      stack,
      tenant,
      userId: orderUserId,
    } = await startOrderStack({ labReportWorker: true, env: { FHIR_EXPORT_PAGE_SIZE: '2', FHIR_EXPORT_RETENTION: '1h' } }));
    other = await createTenant(stack.db);
    fhir = new Client({ baseUrl: `${stack.apiUrl}/fhir/R4`, customHeaders: { 'x-service-api-key': tenant.apiKey } });
    // An order with results: the DiagnosticReport search's first source.
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(orderUserId) });
    expect(created.status).toBe(200);
    orderId = created.body.order.id;
    await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey, body: {} });
    await orderReaches(stack, tenant, orderId, 'completed');
    // Jane Doe uploads her report (completed), and one naming someone else (waits for review).
    userId = await createUser(stack, tenant);
    const info = await call(stack.apiUrl, 'PATCH', `/v2/user/${userId}/info`, {
      key: tenant.apiKey,
      body: {
        first_name: 'Jane',
        last_name: 'Doe',
        email: 'jane.doe@example.com',
        phone_number: '+14155550123',
        gender: 'female',
        dob: '1985-04-12',
        address: { first_line: '1 Market St', country: 'US', zip: '94105', city: 'San Francisco', state: 'CA' },
      },
    });
    expect(info.status).toBe(200);
    jobId = await upload();
    pendingJobId = await upload('Doe, Joan');
    expect(await jobEnds(jobId)).toBe('completed');
    expect(await jobEnds(pendingJobId)).toBe('pending_review');
  }, 180_000);
  afterAll(() => stack?.close());

  it('reads the parsed report as DiagnosticReport/lr-{job id}, and its results as Observations', async () => {
    const report = keep(await as<DiagnosticReport>(fhir.read({ resourceType: 'DiagnosticReport', id: `lr-${jobId}` })));
    expect(report).toMatchObject({
      resourceType: 'DiagnosticReport',
      id: `lr-${jobId}`,
      status: 'final',
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0074', code: 'LAB' }] }],
      code: { coding: [{ system: 'http://loinc.org', code: '11502-2' }] },
      subject: { reference: `Patient/${userId}` },
      effectiveDateTime: '2026-03-02',
      issued: '2026-03-04T00:00:00.000Z',
      performer: [{ display: expect.stringMatching(/Northwind/) }],
    });
    expect(report.presentedForm).toBeUndefined();
    expect(report.result!.map((reference) => reference.reference)).toEqual([0, 1, 2].map((n) => `Observation/lr-${jobId}-${n}`));
    const glucose = keep(await as<Observation>(fhir.read({ resourceType: 'Observation', id: `lr-${jobId}-0` })));
    expect(glucose).toMatchObject({
      status: 'final',
      category: [{ coding: [{ code: 'laboratory' }] }],
      code: { coding: [{ system: 'http://loinc.org', code: '2345-7' }], text: 'Glucose' },
      subject: { reference: `Patient/${userId}` },
      effectiveDateTime: '2026-03-02',
      valueQuantity: { value: 92, unit: 'mg/dL', system: 'http://unitsofmeasure.org', code: 'mg/dL' },
      referenceRange: [{ low: { value: 70 }, high: { value: 99 } }],
    });
    const a1c = keep(await as<Observation>(fhir.read({ resourceType: 'Observation', id: `lr-${jobId}-1` })));
    expect(a1c.interpretation?.[0]?.coding?.[0]?.code).toBe('H');
  });

  it('does not serve a job waiting for review, nor another team’s report', async () => {
    expect(await statusOf(fhir.read({ resourceType: 'DiagnosticReport', id: `lr-${pendingJobId}` }))).toBe(404);
    expect(await statusOf(fhir.read({ resourceType: 'Observation', id: `lr-${pendingJobId}-0` }))).toBe(404);
    const foreign = new Client({ baseUrl: `${stack.apiUrl}/fhir/R4`, customHeaders: { 'x-service-api-key': other.apiKey } });
    expect(await statusOf(foreign.read({ resourceType: 'DiagnosticReport', id: `lr-${jobId}` }))).toBe(404);
    expect(await statusOf(foreign.read({ resourceType: 'Observation', id: `lr-${jobId}-0` }))).toBe(404);
    expect(idsOf(await search('DiagnosticReport', { patient: userId }))).toEqual([`lr-${jobId}`]);
  });

  it('searches them by patient, code, date, category and status, with _include and _revinclude', async () => {
    expect(idsOf(await search('DiagnosticReport', { patient: userId, code: 'http://loinc.org|11502-2', category: 'LAB' }))).toEqual([`lr-${jobId}`]);
    expect(idsOf(await search('DiagnosticReport', { patient: userId, date: 'lt2026-03-01' }))).toEqual([]);
    expect(idsOf(await search('DiagnosticReport', { patient: userId, status: 'partial' }))).toEqual([]);
    const included = await search('DiagnosticReport', { subject: `Patient/${userId}`, _include: 'DiagnosticReport:result' });
    expect(idsOf(included, 'include')).toEqual([0, 1, 2].map((n) => `lr-${jobId}-${n}`));
    expect(idsOf(await search('Observation', { patient: userId, code: 'http://loinc.org|2345-7' }))).toEqual([`lr-${jobId}-0`]);
    expect(idsOf(await search('Observation', { patient: userId, category: 'laboratory', date: ['ge2026-03-02', 'lt2026-03-03'], status: 'final' }))).toEqual(
      [0, 1, 2].map((n) => `lr-${jobId}-${n}`),
    );
    expect(idsOf(await search('Observation', { patient: userId, date: 'ge2026-03-03' }))).toEqual([]);
    expect(idsOf(await search('Observation', { patient: userId, category: 'vital-signs' }))).toEqual([]);
    expect(idsOf(await search('Observation', { patient: userId, _lastUpdated: 'lt2020-01-01' }))).toEqual([]);
    const revIncluded = await search('Observation', { _id: `lr-${jobId}-2`, _revinclude: 'DiagnosticReport:result' });
    expect(idsOf(revIncluded, 'include')).toEqual([`lr-${jobId}`]);
  });

  it('pages across the orders’ reports and the parsed ones (one keyset, each resource once)', async () => {
    expect(await pages('DiagnosticReport', { _count: '1' })).toEqual([[orderId], [`lr-${jobId}`]]);
    const observations = (await pages('Observation', { category: 'laboratory', _count: '2' })).flat();
    expect(new Set(observations).size).toBe(observations.length);
    expect(observations.filter((id) => id!.startsWith('lr-'))).toEqual([0, 1, 2].map((n) => `lr-${jobId}-${n}`));
    expect(observations.filter((id) => id!.startsWith(orderId)).length).toBeGreaterThan(0);
  });

  it('answers Patient/{id}/$everything with the parsed report and its results', async () => {
    const bundle = keep(await as<Bundle>(fhir.operation({ resourceType: 'Patient', id: userId, name: '$everything', method: 'GET' })));
    expect(idsOf(bundle).sort()).toEqual([userId, `lr-${jobId}`, ...[0, 1, 2].map((n) => `lr-${jobId}-${n}`)].sort());
  });

  it('exports them (_type=DiagnosticReport,Observation), written in pages, each line valid', async () => {
    const bulk = bulkClient(stack, tenant.apiKey);
    const kickOff = await bulk.kickOff('Patient/$export?_type=DiagnosticReport,Observation');
    expect(kickOff.status).toBe(202);
    const done = await bulk.completed(kickOff.headers.get('content-location')!);
    expect(done.status).toBe(200);
    const files: Record<string, Resource[]> = {};
    for (const output of done.body.output) files[output.type] = (await bulk.download(output.url)).resources;
    expect(files.DiagnosticReport.map((report) => report.id)).toEqual([orderId, `lr-${jobId}`]);
    const observationIds = files.Observation.map((observation) => observation.id!);
    expect(new Set(observationIds).size).toBe(observationIds.length);
    expect(observationIds.filter((id) => id.startsWith('lr-'))).toEqual([0, 1, 2].map((n) => `lr-${jobId}-${n}`));
    for (const resource of [...files.DiagnosticReport, ...files.Observation]) {
      expect({ id: resource.id, errors: fhirErrors(resource) }).toEqual({ id: resource.id, errors: [] });
    }
  });

  it('returned only valid FHIR R4 (run last)', () => {
    const errors = seen.flatMap((resource) => fhirErrors(resource).map((error) => `${resource.resourceType}/${resource.id}: ${error}`));
    expect(errors).toEqual([]);
    expect(seen.some((resource) => resource.id === `lr-${jobId}`)).toBe(true);
  });
});
