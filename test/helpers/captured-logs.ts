import { Writable } from 'node:stream';
import { createLogger, type Logger, type LogService } from '../../src/common/logger';

/**
 * A logger at the most verbose level whose JSON lines land in `lines` (a test greps them): pass it
 * to startStack and to installTemporalRuntime, so every part of the stack logs there.
 */
export function capturedLogs(service: LogService = 'api'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger(
    { logLevel: 'trace', logFormat: 'json' },
    {
      service,
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          done();
        },
      }),
    },
  );
  return { logger, lines };
}
