import { Hl7InboundService } from '../../src/hl7/hl7-inbound.service';
import { type Hl7Listener, type Hl7ListenerOptions, startHl7Listener } from '../../src/hl7/hl7-listener';
import type { TestStack } from './stack';

/**
 * labflow's MLLP listener over a test stack's inbound service, as the HL7 e2e suites run it: a free
 * loopback port, plain TCP, and a short frame timeout so a truncated frame is answered quickly.
 */
export function startTestHl7Listener(stack: TestStack, options: Partial<Hl7ListenerOptions> = {}): Promise<Hl7Listener> {
  return startHl7Listener(stack.api.get(Hl7InboundService), {
    port: 0,
    host: '127.0.0.1',
    maxMessageBytes: 64_000,
    frameTimeoutMs: 500,
    tls: null,
    logger: { warn: () => undefined },
    ...options,
  });
}

/** An active, client-billed lab account of the team at `labId`, written in SQL (the account is not what these suites test); `hl7 configure` makes it an HL7 lab. */
export async function insertLabAccount(
  stack: TestStack,
  account: { id: string; teamId: string; labId: number; providerAccountId: string; name: string },
): Promise<void> {
  await stack.db.query(
    `INSERT INTO lab_accounts (id, team_id, environment, lab_id, status, delegated_flow, provider_account_id, account_name, allowed_billing, team_id_allowlist)
     VALUES ($1, $2, NULL, $3, 'active', 'not_delegated', $4, $5, '{client_bill}', '{}')`,
    [account.id, account.teamId, account.labId, account.providerAccountId, account.name],
  );
}
