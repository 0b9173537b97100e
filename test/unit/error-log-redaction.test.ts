import { type ArgumentsHost, Logger } from '@nestjs/common';
import { ApiExceptionFilter } from '../../src/common/exception-filter';
import { noteRoute } from '../../src/common/redaction';
import type { PortalBrandService } from '../../src/portal/portal-brand.service';
import { PortalPageFilter } from '../../src/portal/portal-page.filter';

/**
 * A request that fails with a 500 is logged with its method and URL: the URL redacted as the
 * request line is (a portal token or code in the path, an OAuth state or a patient's name in the
 * query), by the API's error filter and by the portal pages' own.
 */
function failingRequest(url: string): ArgumentsHost {
  // A reply whose every method answers itself (status().header().send()).
  const reply: Record<string, unknown> = new Proxy({}, { get: () => () => reply });
  return { switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ method: 'GET', url }) }) } as unknown as ArgumentsHost;
}

let logged: string[];
beforeAll(() => {
  for (const pattern of ['/portal/launch/:token', '/p/:code', '/v2/link/connect/:provider']) noteRoute(pattern);
});
beforeEach(() => {
  logged = [];
  jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => {
    logged.push(String(message));
  });
});
afterEach(() => jest.restoreAllMocks());

test.each([
  ['/portal/launch/T0KEN-SECRET', 'GET /portal/launch/[redacted]: Error: boom'],
  ['/p/C0DESECR/verify', 'GET /p/[redacted]/verify: Error: boom'],
  ['/v2/link/connect/oura?state=STATE-SECRET&code=CODE-SECRET', 'GET /v2/link/connect/oura?state=[redacted]&code=[redacted]: Error: boom'],
  ['/v3/orders?patient_name=Zebulonia&page=2', 'GET /v3/orders?patient_name=[redacted]&page=2: Error: boom'],
])('a 500 on %s is logged with the URL redacted, by the API filter and the portal filter', async (url, line) => {
  new ApiExceptionFilter().catch(new Error('boom'), failingRequest(url));
  await new PortalPageFilter({} as PortalBrandService).catch(new Error('boom'), failingRequest(url));
  expect(logged).toHaveLength(2);
  for (const message of logged) expect(message.split('\n')[0]).toBe(line);
});
