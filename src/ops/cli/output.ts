import { HttpException } from '@nestjs/common';
import { CommanderError } from 'commander';
import { ConfigError } from '../../config/config';

/** The CLI's exit codes (README "Ops CLI"): scripts tell a typo from a missing row from an outage. */
export const EXIT = {
  ok: 0,
  /** Anything unexpected: the database unreachable, a bug. */
  failure: 1,
  /** The command line or a value in it is wrong (unknown command, missing option, invalid id). */
  usage: 2,
  /** What the command names does not exist (or no longer: a revoked key). */
  notFound: 3,
  /** Refused by a rule: an org's last org_admin key, a delivery to a disabled endpoint, a taken id. */
  refused: 4,
} as const;

/** A value the command line gave is wrong in a way the option parsers cannot see. */
export class UsageError extends Error {}

export interface CliFailure {
  exitCode: number;
  message: string;
}

/** What an error means for the operator: an exit code and one message. */
export function describeError(error: unknown): CliFailure {
  if (error instanceof CommanderError) return { exitCode: error.exitCode === 0 ? EXIT.ok : EXIT.usage, message: error.message };
  if (error instanceof UsageError) return { exitCode: EXIT.usage, message: error.message };
  if (error instanceof ConfigError) return { exitCode: EXIT.failure, message: error.message };
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const exitCode = status === 404 ? EXIT.notFound : status === 409 ? EXIT.refused : status < 500 ? EXIT.usage : EXIT.failure;
    return { exitCode, message: detailText(error.getResponse()) };
  }
  return { exitCode: EXIT.failure, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}

/** `{detail}` as text: a string, or the validation issues one per line. */
function detailText(response: unknown): string {
  const detail = (response as { detail?: unknown; message?: unknown })?.detail ?? (response as { message?: unknown })?.message ?? response;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map(
        (issue: { loc?: unknown[]; msg?: string }) => `${(issue.loc ?? []).filter((part) => part !== 'body').join('.') || 'value'}: ${issue.msg ?? 'invalid'}`,
      )
      .join('\n');
  }
  return JSON.stringify(detail);
}

/** Where the CLI writes: the process's stdout and stderr, or a test's buffers when it runs the CLI in-process. */
export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processOutput: CliOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** Prints the result: JSON on stdout with --json, otherwise the human lines. */
export function printResult<T>(out: CliOutput, json: boolean, result: T, human: (result: T) => string[]): void {
  out.stdout(json ? `${JSON.stringify(result, null, 2)}\n` : `${human(result).join('\n')}\n`);
}

/** Prints a failure on stderr: `{"error": ..., "exit_code": ...}` with --json, else `labflow: <message>`. */
export function printFailure(out: CliOutput, json: boolean, failure: CliFailure): void {
  out.stderr(json ? `${JSON.stringify({ error: failure.message, exit_code: failure.exitCode })}\n` : `labflow: ${failure.message}\n`);
}

/** Aligned `name: value` lines. */
export function fields(rows: Array<[string, unknown]>): string[] {
  const width = Math.max(...rows.map(([name]) => name.length)) + 1;
  return rows.filter(([, value]) => value !== undefined).map(([name, value]) => `${`${name}:`.padEnd(width)} ${value === null ? '-' : String(value)}`);
}
