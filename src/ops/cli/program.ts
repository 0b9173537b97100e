import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { RequestValidationError } from '../../common/errors';
import { zodIssues } from '../../common/validation';
import { EventResendService } from '../../events/resend.service';
import { OrgsService } from '../../management/orgs.service';
import { CreateTeamDto } from '../../management/teams/teams.dto';
import { TeamsService } from '../../management/teams/teams.service';
import { WebhookPortalSessionsService } from '../../management/webhooks/webhook-portal-sessions.service';
import { ENVIRONMENTS, ORG_PLANS, REGIONS } from '../../tenancy/entities';
import { KeyAdminService, type KeyView } from '../key-admin.service';
import { OpsQueriesService } from '../ops-queries.service';
import { PhiRekeyService, type RekeyReport } from '../phi-rekey.service';
import type { Hl7MessageSummary } from '../../hl7/hl7.repository';
import { Hl7OpsService } from '../hl7-ops.service';
import { hostname, userInfo } from 'node:os';
import { type CliOutput, describeError, EXIT, fields, printFailure, printResult, UsageError } from './output';
import { orderStoryLines, phiLogLines } from './views';

/** What a command needs from the running labflow: its services (a Nest application context). */
export interface CliContext {
  get<T>(type: abstract new (...args: never[]) => T): T;
}

/** Opens the application context for one command and closes it afterwards. */
export type OpenContext = () => Promise<{ context: CliContext; close(): Promise<void> }>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuid(value: string): string {
  if (!UUID.test(value)) throw new InvalidArgumentError('must be a UUID.');
  return value.toLowerCase();
}

function limit(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 10_000) throw new InvalidArgumentError('must be a whole number from 1 to 10000.');
  return parsed;
}

const defaultLabel = () => `labflow CLI ${new Date().toISOString().slice(0, 10)}`;

/**
 * Runs one command line (`argv` as Node gives it: node, the script, then the arguments) and
 * resolves to its exit code: errors become exit codes here (output.ts `describeError`), printed
 * on `out`'s stderr.
 */
export async function runCommandLine(argv: string[], open: OpenContext, out: CliOutput): Promise<number> {
  const outcome = { exitCode: EXIT.ok as number };
  try {
    await buildProgram(open, out, outcome).parseAsync(argv);
    return outcome.exitCode;
  } catch (error) {
    const failure = describeError(error);
    // Commander printed its own usage errors (and help) already.
    if (!(error instanceof CommanderError)) printFailure(out, argv.includes('--json'), failure);
    return failure.exitCode;
  }
}

/**
 * The ops CLI's commands (`npm run labflow -- <command>`; README "Ops CLI"). Each parses its
 * arguments, calls one service of the running code through `open()`, and prints the result on
 * `out`.
 */
function buildProgram(open: OpenContext, out: CliOutput, outcome: { exitCode: number }): Command {
  const program = new Command('labflow')
    .description('labflow operator commands. Reads the same environment as the labflow processes (DATABASE_URL, PHI_ENCRYPTION_KEY, ...).')
    .option('--json', 'print machine-readable JSON on stdout (errors as JSON on stderr)')
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeOut: (text) => out.stdout(text), writeErr: (text) => out.stderr(text) });

  /**
   * Runs one command's work in an application context and prints what it returns. `exitCode`: for
   * a result that is printed but leaves work undone (phi rekey), the code the command line ends with.
   */
  const run =
    <A extends unknown[], T>(
      work: (context: CliContext, ...args: A) => Promise<T>,
      human: (result: T) => string[],
      options: { exitCode?: (result: T) => number } = {},
    ) =>
    async (...args: [...A, Command]) => {
      const command = args[args.length - 1] as Command;
      const { context, close } = await open();
      try {
        const result = await work(context, ...(args.slice(0, -1) as A));
        printResult(out, Boolean(command.optsWithGlobals().json), result, human);
        outcome.exitCode = options.exitCode?.(result) ?? EXIT.ok;
      } finally {
        await close();
      }
    };

  const org = program.command('org').description('organisations');
  org
    .command('create')
    .description('create an org (the management API needs plan scale)')
    .requiredOption('--name <name>', 'org name')
    .addOption(new Option('--plan <plan>', 'plan').choices(ORG_PLANS).default('scale'))
    .option('--id <uuid>', 'org id (default: a new one)', uuid)
    .action(
      run(
        (context, options: { name: string; plan: (typeof ORG_PLANS)[number]; id?: string }) => {
          if (!options.name.trim()) throw new UsageError('--name must not be empty.');
          return context.get(OrgsService).create(options.name.trim(), options.plan, options.id);
        },
        (created) =>
          fields([
            ['org', created.id],
            ['name', created.name],
            ['plan', created.plan],
          ]),
      ),
    );

  const team = program.command('team').description('teams');
  team
    .command('create')
    .description('create a team in an org')
    .requiredOption('--org <uuid>', 'org id', uuid)
    .requiredOption('--name <name>', 'team name')
    .addOption(new Option('--region <region>', 'region').choices(REGIONS).default('us'))
    .option('--id <uuid>', 'team id (default: a new one)', uuid)
    .action(
      run(
        async (context, options: { org: string; name: string; region: string; id?: string }) => {
          await context.get(OrgsService).get(options.org);
          const input = { name: options.name, region: options.region };
          const parsed = CreateTeamDto.schema.safeParse(input);
          if (!parsed.success) throw new RequestValidationError(zodIssues(parsed.error, input, []));
          // The operator sees every org: choosing a team id tells them nothing they may not know.
          return context.get(TeamsService).create(options.org, parsed.data as CreateTeamDto, options.id);
        },
        (created) =>
          fields([
            ['team', created.id],
            ['name', created.name],
            ['region', created.region],
          ]),
      ),
    );

  const key = program.command('key').description('management keys and team API keys (a new key is printed once: labflow keeps only its hash)');
  key
    .command('create')
    .description('create an org_admin management key (--org) or a team API key (--team)')
    .option('--org <uuid>', 'org of the new org_admin management key', uuid)
    .option('--team <uuid>', 'team of the new team API key', uuid)
    .addOption(new Option('--environment <environment>', 'team API key environment').choices(ENVIRONMENTS).default('sandbox'))
    .option('--label <label>', 'label shown in key listings')
    .action(async (options: { org?: string; team?: string; environment: 'sandbox' | 'production'; label?: string }, command: Command) => {
      if (Boolean(options.org) === Boolean(options.team)) command.error('error: give exactly one of --org <uuid> or --team <uuid>', { exitCode: 2 });
      const label = options.label?.trim() || defaultLabel();
      await run(
        (context) =>
          options.org
            ? context.get(KeyAdminService).createOrgAdminKey(options.org, label)
            : context.get(KeyAdminService).createTeamKey(options.team!, options.environment, label),
        (created) => newKeyLines(created),
      )(command);
    });
  key
    .command('rotate')
    .description('replace a key by a new one with the same grants and label; the old one stops working at once')
    .argument('<key_id>', 'management key id or team API key id', uuid)
    .action(
      run(
        (context, keyId: string) => context.get(KeyAdminService).rotate(keyId),
        (rotated) => [`revoked ${describeKey(rotated.revoked)}`, ...newKeyLines(rotated.created)],
      ),
    );
  key
    .command('revoke')
    .description('revoke a management key or team API key (it is refused from now on)')
    .argument('<key_id>', 'management key id or team API key id', uuid)
    .action(
      run(
        (context, keyId: string) => context.get(KeyAdminService).revoke(keyId),
        (revoked) => [`revoked ${describeKey(revoked)}`],
      ),
    );

  program
    .command('webhook-portal')
    .description("the team's hosted webhook portal")
    .command('revoke')
    .description('revoke every open session of the webhook portal and every portal URL not yet opened (refused from their next request)')
    .requiredOption('--team <uuid>', 'team id', uuid)
    .addOption(new Option('--environment <environment>', 'environment').choices(ENVIRONMENTS).default('sandbox'))
    .action(
      run(
        (context, options: { team: string; environment: (typeof ENVIRONMENTS)[number] }) =>
          context.get(WebhookPortalSessionsService).revokeForTeam({ teamId: options.team, environment: options.environment }),
        (result) => [`revoked ${result.revoked} webhook portal session${result.revoked === 1 ? '' : 's'}`],
      ),
    );

  const phiLog = program.command('phi-log').description('the PHI access log (who read or wrote PHI, with which key)');
  for (const kind of ['user', 'order'] as const) {
    phiLog
      .command(kind)
      .description(kind === 'user' ? "accesses to a user's orders, insurances and user info" : 'accesses to an order')
      .argument(`<${kind}_id>`, `${kind} id`, uuid)
      .option('--limit <n>', 'the newest n accesses', limit, 500)
      .action(
        run(
          (context, id: string, options: { limit: number }) =>
            kind === 'user' ? context.get(OpsQueriesService).phiLogOfUser(id, options.limit) : context.get(OpsQueriesService).phiLogOfOrder(id, options.limit),
          phiLogLines,
        ),
      );
  }

  program
    .command('phi')
    .description('PHI at rest')
    .command('rekey')
    .description(
      'seal again with PHI_ENCRYPTION_KEY every value sealed with a key of PHI_ENCRYPTION_PREVIOUS_KEYS (after a rotation; runs beside the live system, again as often as needed). Exits 1 while a value opens with no configured key.',
    )
    .option('--batch-size <n>', 'rows read at a time', limit, 500)
    .action((options: { batchSize: number }, command: Command) =>
      run(
        (context) =>
          context.get(PhiRekeyService).rekey({
            batchSize: options.batchSize,
            // A large database takes minutes: each column is reported on stderr as it is done (not
            // with --json, whose stderr carries only the error object).
            onColumn: command.optsWithGlobals().json
              ? undefined
              : (done) => out.stderr(`labflow: ${done.table}.${done.column} done (${done.examined} sealed, ${done.resealed} sealed again)\n`),
          }),
        rekeyLines,
        { exitCode: (report) => (report.complete ? EXIT.ok : EXIT.failure) },
      )(command),
    );

  program
    .command('delivery')
    .description('event deliveries (webhooks, RabbitMQ destinations)')
    .command('replay')
    .description('send a stuck, failed or exhausted delivery again now (a manual attempt; the same webhook id)')
    .argument('<delivery_id>', 'delivery id (order story lists them)', uuid)
    .action(
      run(
        (context, deliveryId: string) => context.get(EventResendService).replayDelivery(deliveryId),
        (replayed) => [
          `delivery ${replayed.delivery_id} (${replayed.event_type}, event ${replayed.event_id}) is due now; it was ${replayed.previous_status} after ${replayed.attempt_count} attempt(s).`,
          'A running worker (role delivery) sends it; follow it with `order story` or the management API.',
        ],
      ),
    );

  program
    .command('order')
    .description('orders')
    .command('story')
    .description("an order's row (no PHI), status events, outbox events, deliveries with attempts, and its workflow in the Temporal UI")
    .argument('<order_id>', 'order id', uuid)
    .action(run((context, orderId: string) => context.get(OpsQueriesService).orderStory(orderId), orderStoryLines));

  const hl7 = program.command('hl7').description('labs reached over HL7 v2 / MLLP');
  hl7
    .command('configure')
    .description(
      'make a lab account an HL7 lab: its interface settings as JSON (host, port, tls {caFile, certFile, keyFile}, sending/receiving application and facility, version 2.3|2.5.1, orderMessageType ORM^O01|OML^O21, testCodes {marker_id: {code, text}})',
    )
    .argument('<lab_account_id>', 'lab account id', uuid)
    .requiredOption('--settings <json>', 'the settings, as JSON')
    .action(
      run(
        (context, labAccountId: string, options: { settings: string }) => {
          let settings: unknown;
          try {
            settings = JSON.parse(options.settings);
          } catch {
            throw new UsageError('--settings must be JSON.');
          }
          return context.get(Hl7OpsService).configure(labAccountId, settings);
        },
        (saved) =>
          fields([
            ['lab account', saved.labAccountId],
            ['lab', `${saved.host}:${saved.port}${saved.tls ? ' (TLS)' : ''}`],
            ['message', `${saved.orderMessageType} v${saved.version}`],
            ['test codes', Object.keys(saved.testCodes).length],
          ]),
      ),
    );
  hl7
    .command('messages')
    .description("an order's HL7 messages in and out (envelope, state, ACK code and text; bodies stay sealed)")
    .argument('<order_id>', 'order id', uuid)
    .action(
      run(
        (context, orderId: string) => context.get(Hl7OpsService).messagesOf(orderId),
        (messages) => messages.map(hl7MessageLine),
      ),
    );
  hl7
    .command('show')
    .description(
      "one HL7 message with its decrypted body (PHI): each view is written to the PHI access log (phi-log order) with the operator's OS account and host",
    )
    .argument('<message_id>', 'message id (hl7 messages / hl7 held list them)', uuid)
    .action(
      run(
        (context, messageId: string) => context.get(Hl7OpsService).show(messageId, operator()),
        ({ message, body }) => [hl7MessageLine(message), '', ...body.split(/\r\n?|\n/)],
      ),
    );
  hl7
    .command('held')
    .description('messages from labs that matched no order, held for review')
    .option('--limit <n>', 'at most this many', limit, 100)
    .action(
      run(
        (context, options: { limit: number }) => context.get(Hl7OpsService).held(options.limit),
        (messages) => messages.map(hl7MessageLine),
      ),
    );
  hl7
    .command('rematch')
    .description('match a held message again (by its placer/filler numbers, or to --order) and hand it to the order')
    .argument('<message_id>', 'message id', uuid)
    .option('--order <uuid>', 'the order it belongs to', uuid)
    .action(
      run(
        (context, messageId: string, options: { order?: string }) => context.get(Hl7OpsService).rematch(messageId, options.order),
        (message) => [hl7MessageLine(message)],
      ),
    );
  hl7
    .command('resend')
    .description('send the order message again after the lab refused it (AE/AR) and the cause was fixed')
    .argument('<order_id>', 'order id', uuid)
    .action(
      run(
        (context, orderId: string) => context.get(Hl7OpsService).resend(orderId),
        (result) => [`resend of order ${result.order_id}: ${result.status}`],
      ),
    );

  return program;
}

/** Who runs the CLI, for the audit log: the OS account and the host. */
function operator(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for the uid (some containers): the host still says where.
  }
  return `cli:${user}@${hostname()}`;
}

function hl7MessageLine(message: Hl7MessageSummary): string {
  const ack = message.ackCode ? ` ${message.ackCode}${message.ackText ? ` "${message.ackText}"` : ''}` : '';
  return `${message.id} ${message.direction} ${message.messageType} ${message.controlId} ${message.peerFacility} ${message.state}${ack}${message.orderId ? ` order ${message.orderId}` : ''}`;
}

function describeKey(key: KeyView): string {
  const owner = key.kind === 'management_key' ? `org ${key.org_id}, ${key.role}` : `team ${key.team_id}, ${key.environment}`;
  return `${key.kind.replace(/_/g, ' ')} ${key.id} (${owner}${key.key_prefix ? `, ${key.key_prefix}…` : ''})`;
}

function newKeyLines(key: KeyView): string[] {
  return [`created ${describeKey(key)}, label "${key.label}"`, 'The key is shown this once (labflow stores only its hash):', `  ${key.key}`];
}

function rekeyLines(report: RekeyReport): string[] {
  const lines = report.columns
    .filter((column) => column.examined > 0)
    .map(
      (column) =>
        `${column.table}.${column.column}: ${column.examined} sealed, ${column.resealed} sealed again${column.unreadable ? `, ${column.unreadable} UNREADABLE` : ''}`,
    );
  if (report.plaintextSealed > 0) lines.push(`${report.plaintextSealed} value(s) stored in plaintext before their column was sealed: sealed now.`);
  lines.push(
    report.complete
      ? `Every value in the database is sealed with PHI_ENCRYPTION_KEY (${report.resealed} sealed again now). Keep PHI_ENCRYPTION_PREVIOUS_KEYS while workflows started before the rotation are open: their histories' payloads are sealed with a key derived from it.`
      : `${report.unreadable} value(s) open with no configured key: add the key that sealed them to PHI_ENCRYPTION_PREVIOUS_KEYS and run again.`,
  );
  return lines;
}
