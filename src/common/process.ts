import { ConfigError } from '../config/config';

/**
 * Runs a process entry point: a configuration error ends it with the message naming the bad
 * variable (no stack trace), any other start-up failure with its stack.
 */
export function runProcess(name: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      console.error(`[labflow] ${name}: ${error.message}`);
    } else {
      console.error(`[labflow] ${name} failed to start:`, error);
    }
    process.exit(1);
  });
}
