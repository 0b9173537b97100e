import type { OperationOutcome, Resource } from '@medplum/fhirtypes';
import { eventually } from './eventually';
import { call, type HttpResult, type TestStack } from './stack';

/** The Bulk Data IG's completion manifest, as labflow answers it. */
export interface ExportManifest {
  transactionTime: string;
  request: string;
  requiresAccessToken: boolean;
  output: Array<{ type: string; url: string; count: number }>;
  error: unknown[];
}

/**
 * A Bulk Data client over plain HTTP (fhir-kit-client has no $export support): kick-off with
 * `Prefer: respond-async`, status polls honouring 202, NDJSON downloads with the API key.
 */
export function bulkClient(stack: TestStack, key: string) {
  const fhirPath = (url: string) => url.replace(stack.apiUrl, '');
  return {
    kickOff: (path: string, headers: Record<string, string> = { prefer: 'respond-async', accept: 'application/fhir+json' }) =>
      call<OperationOutcome>(stack.apiUrl, 'GET', `/fhir/R4/${path}`, { key, headers }),
    status: (location: string) => call<ExportManifest | OperationOutcome>(stack.apiUrl, 'GET', fhirPath(location), { key }),
    cancel: (location: string) => call<OperationOutcome>(stack.apiUrl, 'DELETE', fhirPath(location), { key }),
    /** Polls the status URL until it stops answering 202; each 202 must carry X-Progress. */
    async completed(location: string, timeoutMs = 60_000): Promise<HttpResult<ExportManifest>> {
      return eventually(
        async () => {
          const response = await call<ExportManifest>(stack.apiUrl, 'GET', fhirPath(location), { key });
          if (response.status === 202) {
            if (!response.headers.get('x-progress')) throw new Error('a 202 without X-Progress');
            return undefined;
          }
          return response;
        },
        `export ${location} completed`,
        timeoutMs,
        200,
      );
    },
    /** A file's lines, each parsed; the raw status when it is not 200. */
    async download(url: string, asKey = key): Promise<{ status: number; contentType: string | null; resources: Resource[] }> {
      const response = await fetch(url, { headers: { 'x-service-api-key': asKey } });
      const text = await response.text();
      if (response.status !== 200) return { status: response.status, contentType: response.headers.get('content-type'), resources: [] };
      expect(text.endsWith('\n')).toBe(true);
      const lines = text.split('\n').slice(0, -1);
      return { status: 200, contentType: response.headers.get('content-type'), resources: lines.map((line) => JSON.parse(line) as Resource) };
    },
  };
}
