import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { RecordedResponse } from './response-recorder';

/** What the checks read of an OpenAPI 3.0 document. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
}

interface OpenApiOperation {
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(document: OpenApiDocument): Array<{ key: string; path: string; method: string; operation: OpenApiOperation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, operation })),
  );
}

/**
 * The operations that document no success: a 2xx with content (a schema, or a file's media type),
 * a 204, or a 3xx redirect. Each says what is missing, for the route's author.
 */
export function undocumentedSuccesses(document: OpenApiDocument, app: string): string[] {
  return operations(document)
    .filter(
      ({ operation }) =>
        !Object.entries(operation.responses ?? {}).some(
          ([status, response]) =>
            status === '204' || /^3/.test(status) || (/^2/.test(status) && Object.values(response.content ?? {}).some((media) => media.schema)),
        ),
    )
    .map(({ key }) => `${app} ${key}: no success response with a schema (add @ZodResponse({ status, type: <ResponseDto> }), @PdfResponse(), @HttpCode(204)…)`);
}

/** The id the document's components are added to Ajv under, once; the response schemas' `$ref`s point there. */
const DOCUMENT_ID = 'openapi-document';

/**
 * OpenAPI 3.0 schema → what Ajv (draft-07) reads: boolean exclusive bounds become numbers, and a
 * local `$ref` (`#/components/...`) names the document added under DOCUMENT_ID.
 */
function toDraft7<T>(node: T): T {
  if (Array.isArray(node)) return node.map((item) => toDraft7(item)) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = toDraft7(value);
  if (typeof out.$ref === 'string' && out.$ref.startsWith('#/')) out.$ref = `${DOCUMENT_ID}${out.$ref}`;
  for (const [bound, limit] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (out[bound] === true) {
      out[bound] = out[limit];
      delete out[limit];
    } else if (out[bound] === false) delete out[bound];
  }
  return out as T;
}

/**
 * One validator per response schema. The components are added once and each component compiled
 * once, however many response schemas refer to it: a copy of all components inside every response
 * schema made Ajv walk them all again for each (most of the check's CPU).
 */
function validatorFactory(document: OpenApiDocument): (schema: object) => ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  for (const format of ['binary', 'int32', 'int64', 'float', 'double', 'byte', 'password']) ajv.addFormat(format, true);
  ajv.addSchema({ $id: DOCUMENT_ID, components: toDraft7(document.components ?? {}) });
  const cache = new Map<object, ValidateFunction>();
  return (schema) => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(toDraft7(schema));
      cache.set(schema, validate);
    }
    return validate;
  };
}

/**
 * Operations that cannot answer 2xx in labflow today, with why: their success is documented (the
 * interface's), but no recording can show one.
 */
const NEVER_SUCCEEDS: Record<string, string> = {
  'api GET /v3/order/{order_id}/abn_pdf': 'no lab provides an ABN form: always 404 (order-queries.service.ts abnPdf)',
};

/** `/v2/user/:user_id` (Fastify's pattern) → `/v2/user/{user_id}` (the document's). */
const documentPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '') || '/';

/**
 * Everything wrong between a document and recorded answers: operations that never answered 2xx,
 * statuses not documented, bodies that do not match their schema or media type. One line each
 * (per operation and status), naming the operation.
 */
export function responseProblems(document: OpenApiDocument, answers: RecordedResponse[], app: string): string[] {
  const compile = validatorFactory(document);
  const byOperation = new Map<string, RecordedResponse[]>();
  for (const answer of answers) {
    if (!answer.route) continue;
    const key = `${answer.method} ${documentPath(answer.route)}`;
    const answered = byOperation.get(key);
    if (answered) answered.push(answer);
    else byOperation.set(key, [answer]);
  }
  const problems = new Set<string>();
  for (const { key, operation } of operations(document)) {
    const answered = byOperation.get(key) ?? [];
    if (!answered.some((answer) => answer.status < 400) && !NEVER_SUCCEEDS[`${app} ${key}`])
      problems.add(`${app} ${key}: no 2xx/3xx answer recorded (no e2e test calls it successfully)`);
    // Identical answers (the same error, the same empty list) are checked once: a whole e2e run
    // repeats many, and parsing and validating each again would cost CPU and find nothing new.
    const seen = new Set<string>();
    for (const answer of answered) {
      const identity = `${answer.status} ${answer.contentType} ${answer.body}`;
      if (seen.has(identity)) continue;
      seen.add(identity);
      const where = `${app} ${key} ${answer.status}`;
      const responses = operation.responses ?? {};
      const response = responses[String(answer.status)] ?? (answer.status >= 400 ? responses.default : undefined);
      if (!response) {
        problems.add(`${where}: status not documented`);
        continue;
      }
      const mediaType = answer.contentType?.split(';')[0].trim();
      if (!response.content) {
        if (answer.body && answer.status !== 204 && answer.status < 300) problems.add(`${where}: answered ${mediaType} but documents no content`);
        continue;
      }
      if (!mediaType || answer.status === 204) continue;
      const media = response.content[mediaType];
      if (!media) {
        problems.add(`${where}: answered ${mediaType}, documents ${Object.keys(response.content).join(', ')}`);
        continue;
      }
      if (!media.schema || answer.body === undefined || !/json/.test(mediaType)) continue;
      const validate = compile(media.schema);
      if (!validate(JSON.parse(answer.body))) {
        const [error] = validate.errors ?? [];
        problems.add(`${where}: body does not match its schema: ${error?.instancePath || '/'} ${error?.message} (${JSON.stringify(error?.params)})`);
      }
    }
  }
  return [...problems].sort();
}
