import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The built ops CLI (dist/src/cli.js), as `npm run labflow` and the `labflow` bin run it. */
const CLI = join(__dirname, '..', '..', 'dist', 'src', 'cli.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it is JSON. */
  json: any;
}

/** Runs the ops CLI in a child process with this process's environment and `env` over it. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}
