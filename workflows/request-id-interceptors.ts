import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import type { WorkflowInterceptors } from '@temporalio/workflow';
import { REQUEST_ID_TEMPORAL_HEADER } from './contract/request-id';

/**
 * Carries the request id header (contract/request-id.ts) through a workflow: the id of the
 * request that started it, replaced by that of a later signal or update that brings one (a
 * cancellation, a simulation), goes onto every activity and child workflow it schedules and into
 * its log lines. Headers are part of the history, so replay sees the same ids.
 *
 * A worker module (WorkerOptions.interceptors.workflowModules / bundleWorkflowCode's
 * workflowInterceptorModules); state lives in this closure, one per workflow execution.
 */
export function interceptors(): WorkflowInterceptors {
  let requestId: string | undefined;
  const take = (headers: Headers) => {
    const payload = headers[REQUEST_ID_TEMPORAL_HEADER];
    if (!payload) return;
    const value: unknown = defaultPayloadConverter.fromPayload(payload);
    if (typeof value === 'string') requestId = value;
  };
  const pass = (headers: Headers): Headers =>
    requestId === undefined || headers[REQUEST_ID_TEMPORAL_HEADER]
      ? headers
      : { ...headers, [REQUEST_ID_TEMPORAL_HEADER]: defaultPayloadConverter.toPayload(requestId) };
  return {
    inbound: [
      {
        execute: (input, next) => {
          take(input.headers);
          return next(input);
        },
        handleSignal: (input, next) => {
          take(input.headers);
          return next(input);
        },
        handleUpdate: (input, next) => {
          take(input.headers);
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next({ ...input, headers: pass(input.headers) }),
        scheduleLocalActivity: (input, next) => next({ ...input, headers: pass(input.headers) }),
        startChildWorkflowExecution: (input, next) => next({ ...input, headers: pass(input.headers) }),
        getLogAttributes: (input, next) => next(requestId === undefined ? input : { ...input, requestId }),
      },
    ],
  };
}
