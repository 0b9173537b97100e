import { isGrpcServiceError, ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ApiError, badRequest } from '../common/errors';
import { SLOT_TAKEN } from '../../workflows/contract';

/**
 * The HTTP status of an update refused by a workflow, by the refusal's ApplicationFailure type
 * (the constants in workflows/contract/); any other type, or none, is a 400.
 */
const STATUS_OF_FAILURE_TYPE: Readonly<Record<string, number>> = {
  /** Another booking took the slot: a conflict, the client fetches availability again. */
  [SLOT_TAKEN]: 409,
};

/** gRPC status FAILED_PRECONDITION (the server refuses a call on a workflow that is not running). */
const GRPC_FAILED_PRECONDITION = 9;

/**
 * The `{detail}` error a failed update of an order's workflow answers with, chosen by the error's
 * class, never by its message text; null for errors that are not a refusal (rethrow those):
 * - WorkflowUpdateFailedError: the validator or handler refused; its cause's message is the detail
 *   and its ApplicationFailure type chooses the status (STATUS_OF_FAILURE_TYPE);
 * - WorkflowNotFoundError: the workflow has closed (the server answers NOT_FOUND
 *   "workflow execution already completed") or does not exist;
 * - a ServiceError caused by gRPC FAILED_PRECONDITION: the workflow is not running any more.
 */
export function orderUpdateError(error: unknown, orderId: string): ApiError | null {
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause;
    const message = cause instanceof Error ? cause.message : 'The order refused the request.';
    const type = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
    return new ApiError((type !== undefined ? STATUS_OF_FAILURE_TYPE[type] : undefined) ?? 400, message);
  }
  if (error instanceof WorkflowNotFoundError) return badRequest(`Order ${orderId} is no longer active.`);
  if (error instanceof ServiceError && isGrpcServiceError(error.cause) && error.cause.code === GRPC_FAILED_PRECONDITION) {
    return badRequest('The order is no longer active.');
  }
  return null;
}
