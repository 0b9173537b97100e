#!/usr/bin/env node
/**
 * The ops CLI: `npm run labflow -- <command>` (or the `labflow` bin), `--help` lists the commands
 * (src/ops/cli/program.ts; README "Ops CLI"). Same configuration as the processes
 * (src/config/config.ts); each command runs in a Nest application context of CoreModule and
 * OpsModule, so it uses the services and rules the APIs use. Nothing is served or started.
 */
import 'reflect-metadata';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommanderError } from 'commander';
import { type LabflowConfig, loadConfig } from './config/config';
import { CoreModule } from './core.module';
import { OpsModule } from './ops/ops.module';
import { describeError, printFailure } from './ops/cli/output';
import { buildProgram, type OpenContext } from './ops/cli/program';

@Module({})
class CliModule {
  static forRoot(config: LabflowConfig): DynamicModule {
    return { module: CliModule, imports: [CoreModule.forRoot(config), OpsModule] };
  }
}

const open: OpenContext = async () => {
  const config = loadConfig();
  // Nest's own messages would mix with the output on stdout: errors only (on stderr), and thrown
  // rather than aborting the process.
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error'], abortOnError: false });
  return { context: app, close: () => app.close() };
};

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram(open).parseAsync(argv);
    // A command that printed its result but left work undone (phi rekey) set the exit code itself.
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    const failure = describeError(error);
    // Commander printed its own usage errors (and help) already.
    if (!(error instanceof CommanderError)) printFailure(argv.includes('--json'), failure);
    return failure.exitCode;
  }
}

void main(process.argv).then((code) => {
  process.exitCode = code;
});
