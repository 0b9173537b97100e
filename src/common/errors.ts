import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * One entry of a FastAPI-style validation error, the shape the Junction SDK's
 * `HttpValidationError` parses: `{detail: [{loc, msg, type, input, ctx}]}`.
 */
export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** 422 with the FastAPI-style list of issues. */
export class RequestValidationError extends HttpException {
  constructor(readonly issues: ValidationIssue[]) {
    super({ detail: issues }, HttpStatus.UNPROCESSABLE_ENTITY);
  }
}

/** Shorthand for a single 422 issue raised by a rule in a service (not by a schema). */
export function validationError(
  loc: Array<string | number>,
  msg: string,
  input?: unknown,
  type = 'value_error',
  ctx?: Record<string, unknown>,
): RequestValidationError {
  return new RequestValidationError([{ loc, msg, type, input, ...(ctx ? { ctx } : {}) }]);
}

/** An error whose body is `{detail}` with any JSON detail (string or object). */
export class ApiError extends HttpException {
  constructor(status: number, detail: unknown) {
    super({ detail }, status);
  }
}

export const notFound = (what: string) => new ApiError(HttpStatus.NOT_FOUND, `${what} not found.`);
export const badRequest = (detail: unknown) => new ApiError(HttpStatus.BAD_REQUEST, detail);
export const conflict = (detail: unknown) => new ApiError(HttpStatus.CONFLICT, detail);
export const unauthorized = (detail: string) => new ApiError(HttpStatus.UNAUTHORIZED, detail);
export const forbidden = (detail: string) => new ApiError(HttpStatus.FORBIDDEN, detail);
