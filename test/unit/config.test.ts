import { ConfigError, loadConfig } from '../../src/config/config';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('loadConfig', () => {
  it('parses defaults once from the environment', () => {
    const config = loadConfig({ PHI_ENCRYPTION_KEY: KEY });
    expect(config.api.port).toBe(8000);
    expect(config.management.port).toBe(8001);
    expect(config.temporal).toMatchObject({ address: '127.0.0.1:7233', namespace: 'labflow', uiUrl: 'http://127.0.0.1:8233' });
    expect(config.userDeletionGrace).toBe('7d');
    expect(config.phiEncryptionKey).toHaveLength(32);
  });

  it('PHI_ENCRYPTION_PREVIOUS_KEYS and TEMPORAL_PAYLOAD_PREVIOUS_KEYS: none by default, else comma-separated 32-byte keys', () => {
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY })).toMatchObject({ phiPreviousKeys: [], temporalPayloadPreviousKeys: [] });
    const [a, b] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
    const config = loadConfig({
      PHI_ENCRYPTION_KEY: KEY,
      PHI_ENCRYPTION_PREVIOUS_KEYS: `${a.toString('base64')}, ${b.toString('base64')}`,
      TEMPORAL_PAYLOAD_PREVIOUS_KEYS: '',
    });
    expect(config.phiPreviousKeys).toEqual([a, b]);
    expect(config.temporalPayloadPreviousKeys).toEqual([]);
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, PHI_ENCRYPTION_PREVIOUS_KEYS: `${a.toString('base64')},short` })).toThrow(
      /PHI_ENCRYPTION_PREVIOUS_KEYS: must be a comma-separated list of keys/,
    );
  });

  it("Oura: off unless both halves of labflow's OAuth client are given; Oura's own URLs by default", () => {
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY }).providers.oura).toBeNull();
    const oura = { OURA_CLIENT_ID: 'id', OURA_CLIENT_SECRET: 'secret' };
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, PUBLIC_API_URL: 'https://labflow.example', ...oura }).providers.oura).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      authorizeUrl: 'https://cloud.ouraring.com/oauth/authorize',
      apiUrl: 'https://api.ouraring.com',
    });
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, PUBLIC_API_URL: 'https://labflow.example', OURA_CLIENT_ID: 'id' })).toThrow(
      /OURA_CLIENT_ID, OURA_CLIENT_SECRET: set both or neither/,
    );
    // Without the public URL there is no redirect URI to register at Oura.
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, ...oura })).toThrow(/PUBLIC_API_URL: required with OURA_CLIENT_ID/);
  });

  it("Dexcom: off unless both halves of labflow's OAuth client are given; the redirect URI it refreshes with is built on PUBLIC_API_URL", () => {
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY }).providers.dexcom).toBeNull();
    const dexcom = { DEXCOM_CLIENT_ID: 'id', DEXCOM_CLIENT_SECRET: 'secret' };
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, PUBLIC_API_URL: 'https://labflow.example', ...dexcom }).providers.dexcom).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      apiUrl: 'https://api.dexcom.com',
      redirectUri: 'https://labflow.example/v2/link/connect/dexcom_v3',
    });
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, PUBLIC_API_URL: 'https://labflow.example', DEXCOM_CLIENT_SECRET: 'secret' })).toThrow(
      /DEXCOM_CLIENT_ID, DEXCOM_CLIENT_SECRET: set both or neither/,
    );
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, ...dexcom })).toThrow(/PUBLIC_API_URL: required with DEXCOM_CLIENT_ID/);
  });

  it('CONNECTION_SYNC_INTERVALS: per-provider sync intervals, WHOOP every 2 h by default (its daily request limit)', () => {
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY }).connectionSyncIntervals).toEqual({ whoop_v2: '2h' });
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, CONNECTION_SYNC_INTERVALS: 'oura=30m, whoop_v2=6h' }).connectionSyncIntervals).toEqual({
      oura: '30m',
      whoop_v2: '6h',
    });
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, CONNECTION_SYNC_INTERVALS: '' }).connectionSyncIntervals).toEqual({});
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, CONNECTION_SYNC_INTERVALS: 'whoop_v2=soon' })).toThrow(
      /CONNECTION_SYNC_INTERVALS: must be a comma-separated list of provider=duration/,
    );
  });

  it("WHOOP: off unless both halves of labflow's OAuth client are given, with PUBLIC_API_URL for the redirect URI", () => {
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY }).providers.whoop).toBeNull();
    const whoop = { WHOOP_CLIENT_ID: 'id', WHOOP_CLIENT_SECRET: 'secret' };
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, PUBLIC_API_URL: 'https://labflow.example', ...whoop }).providers.whoop).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      apiUrl: 'https://api.prod.whoop.com',
    });
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, PUBLIC_API_URL: 'https://labflow.example', WHOOP_CLIENT_ID: 'id' })).toThrow(
      /WHOOP_CLIENT_ID, WHOOP_CLIENT_SECRET: set both or neither/,
    );
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, ...whoop })).toThrow(
      /PUBLIC_API_URL: required with WHOOP_CLIENT_ID \(WHOOP sends users back to <PUBLIC_API_URL>\/v2\/link\/connect\/whoop_v2/,
    );
  });

  it('HL7: the listener on 2575 without TLS by default, run only when WORKER_ROLES names hl7; its certificate and key together', () => {
    const config = loadConfig({ PHI_ENCRYPTION_KEY: KEY });
    expect(config.hl7).toMatchObject({ listenerPort: 2575, listenerTls: null, maxMessageBytes: 10_000_000, frameTimeoutMs: 30_000, ackTimeoutMs: 30_000 });
    expect(config.workerRoles).not.toContain('hl7');
    expect(config.workerRoles).not.toContain('hl7-listener');
    expect(config.workerRoles).not.toContain('hl7-handoff');
    expect(config.hl7.handoffPollMs).toBe(200);
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, WORKER_ROLES: 'hl7,temporal' }).workerRoles).toEqual(['hl7', 'temporal']);
    const tls = loadConfig({
      PHI_ENCRYPTION_KEY: KEY,
      HL7_LISTENER_TLS_CERT_FILE: '/run/cert.pem',
      HL7_LISTENER_TLS_KEY_FILE: '/run/key.pem',
      HL7_LISTENER_TLS_CA_FILE: '/run/ca.pem',
    });
    expect(tls.hl7.listenerTls).toEqual({ certFile: '/run/cert.pem', keyFile: '/run/key.pem', caFile: '/run/ca.pem' });
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, HL7_LISTENER_TLS_CERT_FILE: '/run/cert.pem' })).toThrow(
      /HL7_LISTENER_TLS_CERT_FILE, HL7_LISTENER_TLS_KEY_FILE: set both or neither/,
    );
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, HL7_LISTENER_TLS_CA_FILE: '/run/ca.pem' })).toThrow(/HL7_LISTENER_TLS_CA_FILE: needs/);
  });

  it("reminders: Junction's schedule by default, lists of durations, or off", () => {
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY }).reminders).toEqual({
      bookAppointmentAfter: ['24h', '72h', '7d'],
      appointmentBefore: ['24h'],
      kitReturnAfter: ['2d', '7d'],
      sendAttempts: 5,
      sendRetryInterval: '30s',
    });
    const custom = loadConfig({
      PHI_ENCRYPTION_KEY: KEY,
      REMINDER_BOOK_APPOINTMENT_AFTER: 'off',
      REMINDER_KIT_RETURN_AFTER: ' 1s, 90m ',
      REMINDER_APPOINTMENT_BEFORE: '',
    });
    expect(custom.reminders).toMatchObject({ bookAppointmentAfter: [], kitReturnAfter: ['1s', '90m'], appointmentBefore: [] });
  });

  it('rate limits: budgets as <count>/<window> or off, their Redis REDIS_URL unless told; TRUST_PROXY off by default', () => {
    const defaults = loadConfig({ PHI_ENCRYPTION_KEY: KEY, REDIS_URL: 'redis://cache:6379/1' });
    expect(defaults.rateLimits).toEqual({
      redisUrl: 'redis://cache:6379/1',
      keyPrefix: 'labflow-rate',
      requests: {
        apiKey: { points: 1_200_000, durationSeconds: 60 },
        managementKey: { points: 60_000, durationSeconds: 60 },
        portal: { points: 600, durationSeconds: 60 },
        link: { points: 1200, durationSeconds: 60 },
        partnerWebhooks: { points: 6000, durationSeconds: 60 },
      },
      failures: {
        invalidKey: { points: 20, durationSeconds: 600 },
        portal: { points: 20, durationSeconds: 600 },
        link: { points: 20, durationSeconds: 600 },
        partnerWebhooks: { points: 20, durationSeconds: 600 },
      },
    });
    expect(defaults.trustProxy).toBe(false);
    const custom = loadConfig({
      PHI_ENCRYPTION_KEY: KEY,
      RATE_LIMIT_REDIS_URL: 'redis://limits:6379/0',
      RATE_LIMIT_API_KEY: ' 100/10s ',
      RATE_LIMIT_PORTAL: 'off',
      TRUST_PROXY: '10.0.0.0/8, 192.168.1.1',
    });
    expect(custom.rateLimits).toMatchObject({ redisUrl: 'redis://limits:6379/0', requests: { apiKey: { points: 100, durationSeconds: 10 }, portal: null } });
    expect(custom.trustProxy).toEqual(['10.0.0.0/8', '192.168.1.1']);
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, TRUST_PROXY: '2' }).trustProxy).toBe(2);
  });

  it.each([
    [{ PHI_ENCRYPTION_KEY: KEY, RATE_LIMIT_API_KEY: '100' }, 'RATE_LIMIT_API_KEY'],
    [{ PHI_ENCRYPTION_KEY: KEY, RATE_LIMIT_LINK: '0/1m' }, 'RATE_LIMIT_LINK'],
    [{ PHI_ENCRYPTION_KEY: KEY, RATE_LIMIT_INVALID_KEYS: '20/500ms' }, 'RATE_LIMIT_INVALID_KEYS'],
    [{ PHI_ENCRYPTION_KEY: KEY, RATE_LIMIT_PORTAL_FAILURES: '20/1.5s' }, 'RATE_LIMIT_PORTAL_FAILURES'],
    [{ PHI_ENCRYPTION_KEY: KEY, REMINDER_APPOINTMENT_BEFORE: 'the day before' }, 'REMINDER_APPOINTMENT_BEFORE'],
    [{ PHI_ENCRYPTION_KEY: KEY, REMINDER_SEND_ATTEMPTS: '0' }, 'REMINDER_SEND_ATTEMPTS'],
    [{ PHI_ENCRYPTION_KEY: 'short' }, 'PHI_ENCRYPTION_KEY'],
    [{ PHI_ENCRYPTION_KEY: KEY, USER_DELETION_GRACE: 'a week' }, 'USER_DELETION_GRACE'],
    [{ PHI_ENCRYPTION_KEY: KEY, API_PORT: '70000' }, 'API_PORT'],
    [{ PHI_ENCRYPTION_KEY: KEY, DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{}, 'PHI_ENCRYPTION_KEY'],
  ])('stops with a message naming the bad variable: %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}:`));
  });
});
