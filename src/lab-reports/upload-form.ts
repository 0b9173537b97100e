import type { FastifyRequest } from 'fastify';
import '@fastify/multipart';
import { ApiError } from '../common/errors';
import type { UploadForm } from './lab-report-uploads.service';

/**
 * Reads a multipart upload: the `file` part into memory (at most `maxBytes`; larger → 413) and
 * the text fields. Other file parts are drained and ignored. Malformed bodies answer 400, never 5xx.
 */
export async function readUploadForm(request: FastifyRequest, maxBytes: number): Promise<UploadForm> {
  if (!request.isMultipart()) throw new ApiError(415, 'Send the report as multipart/form-data with a `file` part.');
  const form: UploadForm = { file: null, fields: {} };
  try {
    const parts = request.parts({ limits: { fileSize: maxBytes, files: 2, fields: 20, fieldSize: 4096, parts: 30 } });
    for await (const part of parts) {
      if (part.type === 'file') {
        const content = await part.toBuffer();
        if (part.fieldname === 'file' && form.file === null) form.file = content;
      } else if (typeof part.value === 'string') {
        form.fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    throw uploadError(error, maxBytes);
  }
  return form;
}

function uploadError(error: unknown, maxBytes: number): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string })?.code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError(413, `The file is larger than ${maxBytes / (1024 * 1024)} MB, the largest report accepted.`);
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new ApiError(400, 'Too many parts: send one `file` with `user_id` and `needs_human_review`.');
    case 'FST_PROTO_VIOLATION':
      return new ApiError(400, 'A form field has a reserved name.');
    default:
      // busboy's parse errors (truncated body, bad boundary) and a closed request.
      return new ApiError(400, 'Malformed multipart body.');
  }
}
