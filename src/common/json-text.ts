/**
 * A response body the service already wrote as JSON text, for bodies big enough that building
 * response objects and then serializing them shows in a profile (a grouped timeseries read: a
 * day is 1,440 samples, ~190 KB). The route returning one declares
 * `@Header('Content-Type', JSON_CONTENT_TYPE)`: Fastify sends a string payload as it is when the
 * reply's content type names JSON (no second serialization), and as text/plain without it.
 */
export type JsonText = string & { readonly __jsonText: unique symbol };

/** The content type Fastify gives the JSON it serializes, so a JsonText body is served alike. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
