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
import { type LabflowConfig, loadConfig } from './config/config';
import { CoreModule } from './core.module';
import { OpsModule } from './ops/ops.module';
import { type CliOutput, processOutput } from './ops/cli/output';
import { type OpenContext, runCommandLine } from './ops/cli/program';

@Module({})
class CliModule {
  static forRoot(config: LabflowConfig): DynamicModule {
    return { module: CliModule, imports: [CoreModule.forRoot(config), OpsModule] };
  }
}

/** An application context on the configuration `env` gives, opened when a command needs one. */
function openWith(env: NodeJS.ProcessEnv): OpenContext {
  return async () => {
    const config = loadConfig(env);
    // Nest's own messages would mix with the output on stdout: errors only (on stderr), and thrown
    // rather than aborting the process.
    const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error'], abortOnError: false });
    return { context: app, close: () => app.close() };
  };
}

/**
 * Runs one command line (`[node, script, ...arguments]`) with the configuration `env` gives and
 * resolves to its exit code; the tests run it in-process with an `out` of their own.
 */
export function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env, out: CliOutput = processOutput): Promise<number> {
  return runCommandLine(argv, openWith(env), out);
}

if (require.main === module) {
  void runCli(process.argv).then((code) => {
    process.exitCode = code;
  });
}
