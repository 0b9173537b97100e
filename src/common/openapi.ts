import { applyDecorators, type INestApplication } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { cleanupOpenApiDoc, createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { documentedNullables, toOpenApi30Nullables } from './schemas';

/**
 * The OpenAPI documents of both HTTP apps (docs/development.md, "Documenting a route").
 *
 * Success responses come from each route's own decorator: `@ZodResponse({ status, type })` with
 * the zod DTO of its body (the handler's return type is checked against the schema at compile
 * time), `@PdfResponse()` for PDFs, `@HttpCode(204)` for empty answers. Error responses are added here to every operation, as they
 * apply: 422 (the validation list) where the route takes parameters or a body, 401 and 429 where
 * it needs a key, 404 where its path has a parameter, and `{detail}` for any other 4xx/5xx.
 */

/** Every error body but a 422's: `{detail}`, a sentence or (auth, providers) a small object. */
const ErrorDetailSchema = z
  .looseObject({ detail: z.union([z.string(), z.record(z.string(), z.unknown())]) })
  .meta({ description: 'Every error answer but a validation failure.' });

/** A 422's body: FastAPI's list of issues (src/common/validation.ts). */
const ValidationErrorSchema = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.union([z.string(), z.number()])),
        msg: z.string(),
        type: z.string(),
        input: z.unknown().optional(),
        ctx: z.record(z.string(), z.unknown()).optional(),
      }),
    ),
  })
  .meta({ description: 'A request refused by its schema: one entry per problem, loc starting with body, query or path.' });

export interface OpenApiOptions {
  title: string;
  description: string;
  /** Header and name of the security scheme the document declares. */
  security: { name: string; header: string };
}

/** The app's document as /openapi.json serves it. */
export function buildOpenApiDocument(app: INestApplication, options: OpenApiOptions): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle(options.title)
      .setDescription(options.description)
      .setVersion('0.4.554')
      .addApiKey({ type: 'apiKey', in: 'header', name: options.security.header }, options.security.name)
      .build(),
  );
  return withErrorResponses(toOpenApi30Nullables(cleanupOpenApiDoc(document)));
}

const ERROR_REF = { $ref: '#/components/schemas/ErrorDetail' };
const VALIDATION_REF = { $ref: '#/components/schemas/ValidationError' };
const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  parameters?: Array<{ in: string }>;
  requestBody?: unknown;
  security?: unknown[];
  responses?: Record<string, unknown>;
}

/** Adds the error answers every operation can give, as they apply, and their two schemas. */
function withErrorResponses(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  schemas.ErrorDetail = openApiSchema(ErrorDetailSchema);
  schemas.ValidationError = openApiSchema(ValidationErrorSchema);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const responses = (operation.responses ??= {});
      const add = (status: string, response: object) => {
        if (!responses[status]) responses[status] = response;
      };
      const inputs = (operation.parameters ?? []).some((parameter) => parameter.in !== 'header') || operation.requestBody !== undefined;
      if (inputs) add('422', json(VALIDATION_REF, 'The request does not match its schema.'));
      if (operation.security?.length) {
        add('401', json(ERROR_REF, 'No key, or a key that is unknown or revoked.'));
        add('429', json(ERROR_REF, 'Over the rate limit (Retry-After says when to come back).'));
      }
      if (path.includes('{')) add('404', json(ERROR_REF, 'Nothing with that id for this key.'));
      add('default', json(ERROR_REF, 'Any other error (4xx, or 500 without internals).'));
    }
  }
  return document;
}

function openApiSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: 'openapi-3.0', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** A PDF file (`application/pdf`). */
export const PdfResponse = (description = 'The PDF.') => BinaryResponse('application/pdf', description);

/** A file of one media type, as bytes. */
function BinaryResponse(mediaType: string, description: string) {
  return applyDecorators(ApiProduces(mediaType), ApiOkResponse({ description, content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } } }));
}

/** `{success: true}`, the answer of many commands. */
export class SuccessResponse extends responseDto(z.object({ success: z.literal(true) })) {}

/**
 * `createZodDto` for a response body: top-level nullable fields documented the OpenAPI 3.0 way
 * (schemas.ts `documentedNullables`; @nestjs/swagger would document them as arrays otherwise).
 */
export function responseDto<T extends z.ZodType>(schema: T) {
  return createZodDto(schema instanceof z.ZodObject ? documentedNullables(schema) : schema);
}
