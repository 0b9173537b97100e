import { HttpException, HttpStatus } from '@nestjs/common';
import type { OperationOutcome } from '@medplum/fhirtypes';

/** IssueType codes (http://hl7.org/fhir/issue-type) labflow answers with. */
type IssueCode = 'invalid' | 'not-found' | 'not-supported' | 'login' | 'forbidden' | 'throttled' | 'exception' | 'processing';

/** An error of the FHIR API, carrying the OperationOutcome it is answered with. */
export class FhirError extends HttpException {
  constructor(status: number, code: IssueCode, text: string, expression?: string) {
    super(operationOutcome(code, text, expression), status);
    this.message = text;
  }

  static invalid(text: string, parameter?: string): FhirError {
    return new FhirError(HttpStatus.BAD_REQUEST, 'invalid', text, parameter);
  }

  static notSupported(text: string, parameter?: string): FhirError {
    return new FhirError(HttpStatus.BAD_REQUEST, 'not-supported', text, parameter);
  }

  static notFound(type: string, id: string): FhirError {
    return new FhirError(HttpStatus.NOT_FOUND, 'not-found', `${type}/${id} not found.`);
  }
}

export function operationOutcome(code: IssueCode, text: string, expression?: string): OperationOutcome {
  return {
    resourceType: 'OperationOutcome',
    issue: [{ severity: code === 'exception' ? 'fatal' : 'error', code, details: { text }, ...(expression ? { expression: [expression] } : {}) }],
  };
}

/** The issue type of an HTTP status labflow's other errors carry. */
export function issueCodeOf(status: number): IssueCode {
  if (status === 401) return 'login';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  if (status === 429) return 'throttled';
  if (status >= 500) return 'exception';
  if (status === 422 || status === 400) return 'invalid';
  return 'processing';
}
