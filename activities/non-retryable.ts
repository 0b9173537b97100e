import { ApplicationFailure } from '@temporalio/common';

/**
 * Wraps service calls so that the errors no retry can fix (named by class in `types`) reach the
 * workflow as non-retryable failures of the given type; anything else stays retryable.
 */
export function nonRetryableByName(types: Record<string, string>) {
  return async function translated<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const type = error instanceof Error ? types[error.constructor.name] : undefined;
      if (type) throw ApplicationFailure.nonRetryable((error as Error).message, type);
      throw error;
    }
  };
}
