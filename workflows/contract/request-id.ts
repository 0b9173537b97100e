/**
 * The Temporal header that carries the id of the HTTP request behind a workflow start, signal or
 * update on to the workflow's activities, so their log lines (and the events they write) name it.
 * Set by the client interceptor in src/temporal/request-id-interceptors.ts, passed on by
 * workflows/request-id-interceptors.ts.
 */
export const REQUEST_ID_TEMPORAL_HEADER = 'labflow-request-id';
