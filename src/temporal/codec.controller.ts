import { Controller, Headers, HttpCode, Inject, Options, Post, Res } from '@nestjs/common';
import { Body } from '../common/request-params';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Payload } from '@temporalio/common';
import type { FastifyReply } from 'fastify';
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { ApiKeysService } from '../auth/api-keys.service';
import { Public } from '../auth/principal';
import { unauthorized } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { labflowDataConverter } from './payload-codec';

const jsonPayload = z.object({ metadata: z.record(z.string(), z.string()).default({}), data: z.string().default('') });
class CodecRequest extends createZodDto(z.object({ payloads: z.array(jsonPayload).max(10_000) })) {}
type JsonPayload = z.infer<typeof jsonPayload>;

/**
 * Temporal's remote codec protocol (POST /codec/encode and /codec/decode with
 * `{payloads: [{metadata, data}]}` in base64), so the Temporal UI shows decrypted payloads to
 * those allowed to see them while the history store keeps ciphertext. The UI calls it from the
 * browser: CORS is open to the configured UI origins only. Outside development a management key
 * is required (`Authorization: Bearer <key>` or `X-Management-Key`).
 */
@ApiExcludeController()
@Public()
@Controller('codec')
export class CodecController {
  private readonly codec;

  constructor(
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
    private readonly keys: ApiKeysService,
  ) {
    this.codec = labflowDataConverter(config).payloadCodecs[0];
  }

  @Options(['encode', 'decode'])
  @HttpCode(204)
  preflight(@Headers('origin') origin: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): void {
    this.allowOrigin(origin, reply);
  }

  @Post('decode')
  @HttpCode(200)
  async decode(@Body() body: CodecRequest, @Headers() headers: Record<string, string | undefined>, @Res({ passthrough: true }) reply: FastifyReply) {
    this.allowOrigin(headers.origin, reply);
    await this.authorize(headers);
    return { payloads: (await this.codec.decode(body.payloads.map(fromJson))).map(toJson) };
  }

  @Post('encode')
  @HttpCode(200)
  async encode(@Body() body: CodecRequest, @Headers() headers: Record<string, string | undefined>, @Res({ passthrough: true }) reply: FastifyReply) {
    this.allowOrigin(headers.origin, reply);
    await this.authorize(headers);
    return { payloads: (await this.codec.encode(body.payloads.map(fromJson))).map(toJson) };
  }

  private allowOrigin(origin: string | undefined, reply: FastifyReply): void {
    if (!origin || !this.config.codec.corsOrigins.includes(origin)) return;
    void reply
      .header('access-control-allow-origin', origin)
      .header('vary', 'origin')
      .header('access-control-allow-methods', 'POST, OPTIONS')
      .header('access-control-allow-headers', 'content-type, x-namespace, authorization, x-management-key')
      .header('access-control-allow-credentials', 'true');
  }

  private async authorize(headers: Record<string, string | undefined>): Promise<void> {
    if (!this.config.codec.requireKey) return;
    const bearer = headers.authorization?.replace(/^Bearer\s+/i, '');
    const key = headers['x-management-key'] ?? bearer;
    if (!key || !(await this.keys.authenticateManagementKey(key))) {
      throw unauthorized('The codec endpoint needs a management key (Authorization: Bearer <key>).');
    }
  }
}

function fromJson(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
    data: Buffer.from(payload.data, 'base64'),
  };
}

function toJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}
