import { ForbiddenException } from '@nestjs/common';
import type { ManagementPrincipal } from '../../src/auth/principal';
import { authorizeOrg, authorizeOrgAdmin, authorizeTeam, teamRestriction } from '../../src/management/common/access';
import { decodeCursor, encodeCursor, nextCursorParam } from '../../src/common/keyset-cursor';
import { uuidParam } from '../../src/management/common/params';
import { repeatable } from '../../src/common/schemas';
import { isAmqpUri, maskAmqpUri } from '../../src/events/amqp-uri';
import { azureTargetFor, maskAzureConnectionString, pipelineAccepts } from '../../src/management/etl-pipelines/etl-routing';
import { TEAM_SEARCH_PATTERN } from '../../src/management/teams/teams.dto';
import { generateWebhookSecret, webhookSecret } from '../../src/management/webhooks/webhook-secrets';
import { webhookUrlProblem } from '../../src/events/webhook-url';

const ORG = '11111111-1111-4111-8111-111111111111';
const TEAM = '22222222-2222-4222-8222-222222222222';
const OTHER_TEAM = '33333333-3333-4333-8333-333333333333';

const orgKey: ManagementPrincipal = { keyId: 'k', orgId: ORG, orgPlan: 'scale', role: 'org_admin', teamIds: [] };
const teamKey: ManagementPrincipal = { ...orgKey, role: 'team_admin', teamIds: [TEAM] };

describe('access rules', () => {
  test('a foreign org is 404 for every key', () => {
    for (const key of [orgKey, teamKey]) {
      expect(() => authorizeOrg(key, OTHER_TEAM)).toThrow(expect.objectContaining({ status: 404 }));
      expect(() => authorizeTeam(key, OTHER_TEAM, TEAM)).toThrow(expect.objectContaining({ status: 404 }));
    }
  });

  test('team-admin keys: their teams only, never org-level', () => {
    expect(() => authorizeTeam(teamKey, ORG, TEAM)).not.toThrow();
    expect(() => authorizeTeam(teamKey, ORG, OTHER_TEAM)).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => authorizeOrgAdmin(teamKey, ORG, 'x')).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => authorizeOrgAdmin(orgKey, ORG, 'x')).not.toThrow();
    expect(() => authorizeTeam(orgKey, ORG, OTHER_TEAM)).not.toThrow();
    expect(teamRestriction(orgKey)).toBeNull();
    expect(teamRestriction(teamKey)).toEqual([TEAM]);
  });

  test('refusals are {detail} errors', () => {
    try {
      authorizeOrgAdmin(teamKey, ORG, 'Creating a team');
      throw new Error('not refused');
    } catch (error) {
      expect(error).not.toBeInstanceOf(ForbiddenException);
      expect((error as { getResponse(): unknown }).getResponse()).toEqual({ detail: expect.stringMatching(/^Creating a team needs an org/) });
    }
  });
});

describe('cursor', () => {
  test('round trip, opaque base64url', () => {
    const position = { at: '2026-01-02T03:04:05.123456', id: TEAM };
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(position);
    expect(nextCursorParam.parse(cursor)).toEqual(position);
  });

  test.each([
    '',
    'not base64!',
    Buffer.from('{}').toString('base64url'),
    Buffer.from('["2026-01-02T03:04:05.123456"]').toString('base64url'),
    Buffer.from('["2026-01-02 03:04:05","' + TEAM + '"]').toString('base64url'),
    Buffer.from('["2026-13-45T03:04:05.123456","' + TEAM + '"]').toString('base64url'),
    Buffer.from('["2026-01-02T03:04:05.123456","x\' OR 1=1"]').toString('base64url'),
    'A'.repeat(500),
  ])('rejects %j', (cursor) => {
    expect(decodeCursor(cursor)).toBeNull();
    expect(nextCursorParam.safeParse(cursor).success).toBe(false);
  });
});

describe('query parameters', () => {
  test('repeatable accepts one value or many', () => {
    const schema = repeatable(uuidParam, { max: 2 });
    expect(schema.parse(TEAM)).toEqual([TEAM]);
    expect(schema.parse([TEAM, OTHER_TEAM.toUpperCase()])).toEqual([TEAM, OTHER_TEAM]);
    expect(schema.safeParse([TEAM, TEAM, TEAM]).success).toBe(false);
    expect(schema.optional().parse(undefined)).toBeUndefined();
  });

  test.each([
    ['', true],
    ['Zoë’s Clinic', true],
    ["O'Brien (Health) & Co | Lab/Test: one_two-three", true],
    ['ÀÖØöøÿ', true],
    ['a'.repeat(80), true],
    ['a'.repeat(81), false],
    ['×', false], // U+00D7 sits between Ö and Ø, outside the class
    ['÷', false], // U+00F7 sits between ö and ø
    ['Ł', false],
    ['a;b', false],
    ['<b>', false],
    ['50%', false],
    ['"quoted"', false],
  ])('team search pattern: %j → %s', (value, ok) => {
    expect(TEAM_SEARCH_PATTERN.test(value)).toBe(ok);
  });
});

describe('webhook secrets and URLs', () => {
  test('generated secrets: whsec_ + base64 of 24 random bytes', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(24);
    expect(generateWebhookSecret()).not.toBe(a);
    expect(webhookSecret.safeParse(a).success).toBe(true);
    expect(webhookSecret.safeParse(`whsec_${Buffer.alloc(65).toString('base64')}`).success).toBe(false);
    expect(webhookSecret.safeParse('sk_abc').success).toBe(false);
  });

  test.each([
    ['https://hooks.example.com/x', false, null],
    ['http://hooks.example.com/x', false, null],
    ['ftp://hooks.example.com/x', true, /http or https/],
    ['https://u:p@hooks.example.com', true, /credentials/],
    ['https://localhost:3000/x', false, /localhost/],
    ['https://api.localhost/x', false, /localhost/],
    ['http://127.0.0.1/x', false, /private/],
    ['http://10.1.2.3/x', false, /private/],
    ['http://169.254.169.254/latest/meta-data', false, /private/],
    ['http://[::1]/x', false, /private/],
    ['http://[fd00::1]/x', false, /private/],
    ['http://[::ffff:127.0.0.1]/x', false, /private/],
    ['http://8.8.8.8/x', false, null],
    ['not a url', true, /valid/],
  ])('%s (allowPrivate=false)', (url, alwaysRefused, problem) => {
    const strict = webhookUrlProblem(url, false);
    if (problem) expect(strict).toMatch(problem);
    else expect(strict).toBeNull();
    const relaxed = webhookUrlProblem(url, true);
    if (alwaysRefused) expect(relaxed).not.toBeNull();
    else expect(relaxed).toBeNull();
  });
});

describe('event destination routing', () => {
  test('prefix allowlist: null or [] means every event type', () => {
    expect(pipelineAccepts({ eventTypePrefixes: null }, 'labtest.order.created')).toBe(true);
    expect(pipelineAccepts({ eventTypePrefixes: [] }, 'anything')).toBe(true);
    expect(pipelineAccepts({ eventTypePrefixes: ['labtest.', 'daily.data.sleep'] }, 'labtest.order.created')).toBe(true);
    expect(pipelineAccepts({ eventTypePrefixes: ['labtest.'] }, 'daily.data.sleep.created')).toBe(false);
  });

  test('azure matchers tried in order; unmatched go to the default hub', () => {
    const destination = {
      connection_string: 'Endpoint=sb://x/',
      default_event_hub: 'default',
      compression: 'none' as const,
      event_hub_matchers: [
        { event_type_prefix: 'labtest.', event_hub: 'labs' },
        { event_type_regex: '^daily\\.data\\.(sleep|activity)\\.', blob_storage: 'archive' },
        { event_type_prefix: 'labtest.order', event_hub: 'never' },
      ],
    };
    expect(azureTargetFor(destination, 'labtest.order.created')).toEqual({ event_hub: 'labs' });
    expect(azureTargetFor(destination, 'daily.data.sleep.created')).toEqual({ blob_storage: 'archive' });
    expect(azureTargetFor(destination, 'daily.data.steps.created')).toEqual({ event_hub: 'default' });
  });

  test('AMQP URIs and masking', () => {
    expect(isAmqpUri('amqp://guest:guest@localhost:5672/')).toBe(true);
    expect(isAmqpUri('amqps://mq.example.com')).toBe(true);
    expect(isAmqpUri('AMQPS://mq.example.com')).toBe(true);
    expect(isAmqpUri('http://mq.example.com')).toBe(false);
    expect(isAmqpUri('amqp://')).toBe(false);
    expect(isAmqpUri('amqp:mq')).toBe(false);
    expect(maskAmqpUri('amqps://user:pa55@mq.example.com/v')).toBe('amqps://user:****@mq.example.com/v');
    expect(maskAmqpUri('amqp://mq.example.com/v')).toBe('amqp://mq.example.com/v');
    expect(maskAzureConnectionString('Endpoint=sb://a/;SharedAccessKeyName=n;SharedAccessKey=s3cr=t')).toBe(
      'Endpoint=sb://a/;SharedAccessKeyName=n;SharedAccessKey=****',
    );
  });
});
