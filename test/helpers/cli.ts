import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runCli as runCliCommandLine } from '../../src/cli';

/** The built ops CLI (dist/src/cli.js), as `npm run labflow` and the `labflow` bin run it. */
const CLI = join(__dirname, '..', '..', 'dist', 'src', 'cli.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it is JSON. */
  json: any;
}

function parsed(code: number | null, stdout: string, stderr: string): CliRun {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/**
 * Runs the ops CLI in this process (src/cli.ts's runCli: the same commands, services and exit
 * codes, its output captured) with this process's environment and `env` over it. What only a
 * process shows (the built binary starts, the exit code is the process's) is spawnCli's.
 */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCliCommandLine(
    [process.execPath, CLI, ...args],
    { ...process.env, ...env },
    {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    },
  );
  return parsed(code, stdout, stderr);
}

/** Runs the built ops CLI in a child process with this process's environment and `env` over it. */
export function spawnCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve(parsed(code, stdout, stderr)));
  });
}
