import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config';

const KEY = Buffer.alloc(32, 7).toString('base64');
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const PRIVATE_KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';

let dir: string;
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'labflow-temporal-tls-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The Temporal part of the configuration for these variables (plus a valid PHI key). */
const temporalOf = (env: Record<string, string>) => loadConfig({ PHI_ENCRYPTION_KEY: KEY, ...env }).temporal;

/** The message loadConfig stops with, which must name `setting`. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ PHI_ENCRYPTION_KEY: KEY, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('Temporal connection settings', () => {
  it('connects to the local dev server in plain text by default', () => {
    const temporal = temporalOf({});
    expect(temporal).toMatchObject({ address: '127.0.0.1:7233', namespace: 'labflow', taskQueue: 'labflow' });
    expect(temporal.connection).toEqual({ address: '127.0.0.1:7233' });
  });

  it('Temporal Cloud with an API key: TLS on, the key sent, namespace and task queue as given', () => {
    const temporal = temporalOf({
      TEMPORAL_ADDRESS: 'us-east-1.aws.api.temporal.io:7233',
      TEMPORAL_NAMESPACE: 'labflow-prod.a1b2c',
      TEMPORAL_API_KEY: 'secret-api-key',
      TEMPORAL_TASK_QUEUE: 'labflow-orders',
    });
    expect(temporal).toMatchObject({ address: 'us-east-1.aws.api.temporal.io:7233', namespace: 'labflow-prod.a1b2c', taskQueue: 'labflow-orders' });
    expect(temporal.connection).toEqual({ address: 'us-east-1.aws.api.temporal.io:7233', apiKey: 'secret-api-key', tls: true });
  });

  it('mutual TLS with a private CA and a server name override reads the PEM files', () => {
    const temporal = temporalOf({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_TLS_CLIENT_CERT_PATH: file('client.pem', CERT),
      TEMPORAL_TLS_CLIENT_KEY_PATH: file('client.key', PRIVATE_KEY),
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: file('ca.pem', CERT),
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.internal',
    });
    const tls = temporal.connection.tls as {
      clientCertPair: { crt: Uint8Array; key: Uint8Array };
      serverRootCACertificate: Uint8Array;
      serverNameOverride: string;
    };
    expect(Buffer.from(tls.clientCertPair.crt).toString()).toBe(CERT);
    expect(Buffer.from(tls.clientCertPair.key).toString()).toBe(PRIVATE_KEY);
    expect(Buffer.from(tls.serverRootCACertificate).toString()).toBe(CERT);
    expect(tls.serverNameOverride).toBe('frontend.temporal.internal');
  });

  it('reads a profile of a TOML file, environment variables winning over it', () => {
    const toml = file(
      'temporal.toml',
      ['[profile.cloud]', 'address = "eu-west-1.aws.api.temporal.io:7233"', 'namespace = "from-file.a1b2c"', 'api_key = "file-key"', ''].join('\n'),
    );
    const temporal = temporalOf({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud', TEMPORAL_NAMESPACE: 'from-env.a1b2c' });
    expect(temporal.namespace).toBe('from-env.a1b2c');
    expect(temporal.connection).toEqual({ address: 'eu-west-1.aws.api.temporal.io:7233', apiKey: 'file-key', tls: true });
  });

  it.each([
    [
      { TEMPORAL_TLS_CLIENT_CERT_PATH: '/nonexistent/client.pem', TEMPORAL_TLS_CLIENT_KEY_PATH: '@key' },
      /TEMPORAL_TLS_CLIENT_CERT_PATH: no file at \/nonexistent\/client\.pem/,
    ],
    [{ TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/nonexistent/ca.pem' }, /TEMPORAL_TLS_SERVER_CA_CERT_PATH: no file at/],
    [{ TEMPORAL_TLS_CLIENT_KEY_PATH: '@key' }, /TEMPORAL_TLS_CLIENT_KEY_PATH: a client key needs its certificate too/],
    [{ TEMPORAL_TLS_CLIENT_CERT_PATH: '@cert' }, /TEMPORAL_TLS_CLIENT_CERT_PATH: a client certificate needs its private key too/],
    [{ TEMPORAL_TLS_CLIENT_CERT_PATH: '@notPem', TEMPORAL_TLS_CLIENT_KEY_PATH: '@key' }, /TEMPORAL_TLS_CLIENT_CERT_PATH: is not a PEM certificate/],
    [{ TEMPORAL_API_KEY: 'secret', TEMPORAL_TLS: 'false' }, /TEMPORAL_API_KEY: an API key is only sent over TLS/],
    [{ TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '@cert' }, /TEMPORAL_TLS: TLS is turned off, yet TEMPORAL_TLS_SERVER_CA_CERT_PATH is set/],
    [{ TEMPORAL_TLS: 'yes' }, /TEMPORAL_TLS: must be true or false/],
    [{ TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' }, /TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: not supported/],
    [{ TEMPORAL_API_KEY: '' }, /TEMPORAL_API_KEY: is empty/],
    [{ TEMPORAL_ADDRESS: '' }, /TEMPORAL_ADDRESS: is empty/],
    [{ TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' }, /TEMPORAL_CONFIG_FILE: no file at/],
    [{ TEMPORAL_CONFIG_FILE: '@toml', TEMPORAL_PROFILE: 'staging' }, /TEMPORAL_PROFILE: Profile 'staging' not found/],
    [{ TEMPORAL_CONFIG_FILE: '@tomlTypo' }, /TEMPORAL_CONFIG_FILE: .*unrecognized.*adress/],
    [{ TEMPORAL_CONFIG_FILE: '@tomlBadCert' }, /tls\.client_cert_path \(profile "default" of .*bad-cert\.toml\): no file at \/nonexistent\/cert\.pem/],
  ])('stops naming the setting: %j', (env, expected) => {
    const files: Record<string, () => string> = {
      '@key': () => file('only.key', PRIVATE_KEY),
      '@cert': () => file('only.pem', CERT),
      '@notPem': () => file('not-pem.txt', 'hello'),
      '@toml': () => file('profiles.toml', '[profile.default]\naddress = "localhost:7233"\n'),
      '@tomlTypo': () => file('typo.toml', '[profile.default]\nadress = "localhost:7233"\n'),
      '@tomlBadCert': () =>
        file(
          'bad-cert.toml',
          '[profile.default]\n[profile.default.tls]\nclient_cert_path = "/nonexistent/cert.pem"\nclient_key_path = "/nonexistent/key.pem"\n',
        ),
    };
    const resolved = Object.fromEntries(Object.entries(env).map(([name, value]) => [name, files[value]?.() ?? value]));
    expect(refusal(resolved)).toMatch(expected);
  });

  it('lists Temporal problems together with the other bad variables', () => {
    const message = refusal({ API_PORT: '70000', TEMPORAL_TLS_CLIENT_KEY_PATH: file('lonely.key', PRIVATE_KEY) });
    expect(message).toMatch(/API_PORT:/);
    expect(message).toMatch(/TEMPORAL_TLS_CLIENT_KEY_PATH:/);
  });
});
