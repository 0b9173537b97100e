import type { Context as ActivityContext } from '@temporalio/activity';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptors } from '@temporalio/worker';
import { REQUEST_ID_TEMPORAL_HEADER } from '../../workflows/contract';
import { currentRequestId, isRequestId, runWithRequestId } from '../common/request-context';

function withRequestId(headers: Headers): Headers {
  const requestId = currentRequestId();
  if (requestId === undefined || headers[REQUEST_ID_TEMPORAL_HEADER]) return headers;
  return { ...headers, [REQUEST_ID_TEMPORAL_HEADER]: defaultPayloadConverter.toPayload(requestId) };
}

function requestIdOf(headers: Headers): string | undefined {
  const payload = headers[REQUEST_ID_TEMPORAL_HEADER];
  if (!payload) return undefined;
  try {
    const value: unknown = defaultPayloadConverter.fromPayload(payload);
    return isRequestId(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Client side: a workflow started, signalled or updated while serving a request carries that
 * request's id in a header (the Temporal client of every process registers it).
 */
export const requestIdClientInterceptor: WorkflowClientInterceptor = {
  start: (input, next) => next({ ...input, headers: withRequestId(input.headers) }),
  signal: (input, next) => next({ ...input, headers: withRequestId(input.headers) }),
  signalWithStart: (input, next) => next({ ...input, headers: withRequestId(input.headers) }),
  startUpdate: (input, next) => next({ ...input, headers: withRequestId(input.headers) }),
};

/**
 * Activity side: an activity scheduled on behalf of a request runs in that request's context (so
 * the outbox rows it writes name it) and its log lines carry `requestId`.
 */
export function requestIdActivityInterceptors(_context: ActivityContext): ActivityInterceptors {
  let requestId: string | undefined;
  return {
    inbound: {
      execute: (input, next) => {
        requestId = requestIdOf(input.headers);
        return requestId === undefined ? next(input) : runWithRequestId(requestId, () => next(input));
      },
    },
    outbound: {
      getLogAttributes: (input, next) => next(requestId === undefined ? input : { ...input, requestId }),
    },
  };
}
