import type { TLSConfig } from '@temporalio/client';
import { type ClientConfigProfile, type ConfigDataSource, loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import { existsSync, readFileSync, statSync } from 'node:fs';

/**
 * How labflow reaches Temporal: a local dev server, a secured self-hosted cluster (TLS, mutual
 * TLS) or Temporal Cloud (mutual TLS or an API key). The settings are Temporal's own
 * environment-configuration ones (`@temporalio/envconfig`): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH|_DATA,
 * TEMPORAL_TLS_CLIENT_KEY_PATH|_DATA, TEMPORAL_TLS_SERVER_CA_CERT_PATH|_DATA,
 * TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_*, and a profile of a TOML file
 * (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE), environment variables winning over the file. The
 * file is read only when one of those two is set: a server must not pick up whatever profile
 * the temporal CLI of the machine's user happens to hold.
 */

/** What the API's Client, the worker's NativeConnection and the scripts connect with. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
}

export interface TemporalConnectionSettings {
  connection: TemporalConnectionOptions;
  namespace: string;
}

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_TEMPORAL_NAMESPACE = 'labflow';

/**
 * The connection settings as docs/configuration.md lists them (`npm run docs:config`): they are
 * envconfig's, not in envSchema, so their descriptions live here.
 */
export const TEMPORAL_CONNECTION_VARIABLES: readonly { name: string; default?: string; description: string }[] = [
  {
    name: 'TEMPORAL_ADDRESS',
    default: DEFAULT_TEMPORAL_ADDRESS,
    description:
      '`host:port` of the Temporal frontend. Temporal Cloud: `<namespace>.<account>.tmprl.cloud:7233` with mTLS, or the regional endpoint (such as `us-east-1.aws.api.temporal.io:7233`) with an API key.',
  },
  {
    name: 'TEMPORAL_NAMESPACE',
    default: DEFAULT_TEMPORAL_NAMESPACE,
    description: 'The namespace (tests: `labflow-test`; Temporal Cloud: `<namespace>.<account>`).',
  },
  { name: 'TEMPORAL_API_KEY', description: 'An API key (Temporal Cloud). Turns TLS on by itself.' },
  {
    name: 'TEMPORAL_TLS',
    description: "`true`: TLS with the system's CAs. `false`: no TLS (refused together with an API key or certificates). Only `true` or `false`.",
  },
  {
    name: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
    description: 'Mutual TLS: the client certificate, PEM. Needs `TEMPORAL_TLS_CLIENT_KEY_PATH`. `TEMPORAL_TLS_CLIENT_CERT_DATA` takes the PEM text itself.',
  },
  {
    name: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
    description: "Mutual TLS: the client certificate's private key, PEM. `TEMPORAL_TLS_CLIENT_KEY_DATA` takes the PEM text itself.",
  },
  {
    name: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    description: "The CA that signed the server's certificate, PEM, when it is not a public one. `TEMPORAL_TLS_SERVER_CA_CERT_DATA` takes the PEM text itself.",
  },
  { name: 'TEMPORAL_TLS_SERVER_NAME', description: "The name to check the server's certificate against, when it differs from the address's host." },
  { name: 'TEMPORAL_GRPC_META_<NAME>', description: 'An extra gRPC header `<name>` on every call.' },
  {
    name: 'TEMPORAL_CONFIG_FILE',
    description:
      "A TOML file of profiles in the `temporal` CLI's format (`[profile.prod]` with `address`, `namespace`, `api_key`; `[profile.prod.tls]` with `client_cert_path`, `client_key_path`, `server_ca_cert_path`, `server_name`). Environment variables win over the file. The file is read only when this or `TEMPORAL_PROFILE` is set, so a server never picks up its user's CLI profile.",
  },
  { name: 'TEMPORAL_PROFILE', default: 'default', description: 'The profile of the TOML file to use.' },
];

type Env = Record<string, string | undefined>;
type Result = { ok: true; settings: TemporalConnectionSettings } | { ok: false; errors: string[] };

/** One TLS file setting: its envconfig field, its environment variables and its TOML keys. */
const TLS_FILES = [
  { field: 'clientCert', env: 'TEMPORAL_TLS_CLIENT_CERT', toml: 'client_cert', pem: 'certificate' },
  { field: 'clientKey', env: 'TEMPORAL_TLS_CLIENT_KEY', toml: 'client_key', pem: 'private key' },
  { field: 'serverCACert', env: 'TEMPORAL_TLS_SERVER_CA_CERT', toml: 'server_ca_cert', pem: 'CA certificate' },
] as const;

/**
 * Resolves and checks the Temporal connection settings. Every problem is returned, each line
 * naming the setting to fix, so the process can stop before it connects anywhere.
 */
export function resolveTemporalConnection(env: Env): Result {
  for (const flag of ['TEMPORAL_TLS', 'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION']) {
    // envconfig reads anything but "true"/"1" as false: TEMPORAL_TLS=yes would turn TLS off.
    if (env[flag] !== undefined && !['true', 'false', '1', '0'].includes(env[flag]!)) return failure(`${flag}: must be true or false`);
  }
  if (env.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION === 'true' || env.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION === '1') {
    return failure(
      'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: not supported by the TypeScript SDK; set TEMPORAL_TLS_SERVER_NAME to the name the certificate carries',
    );
  }
  const file = env.TEMPORAL_CONFIG_FILE;
  const useFile = Boolean(file || env.TEMPORAL_PROFILE);
  if (file && !existsSync(file)) return failure(`TEMPORAL_CONFIG_FILE: no file at ${file}`);
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({ disableFile: !useFile, configFileStrict: true, overrideEnvVars: definedOnly(env) });
  } catch (error) {
    const setting = /profile/i.test(message(error)) && env.TEMPORAL_PROFILE ? 'TEMPORAL_PROFILE' : 'TEMPORAL_CONFIG_FILE';
    return failure(`${setting}: ${message(error)}`);
  }
  const name = settingNamer(env, file ?? 'the temporal.toml of this user', env.TEMPORAL_PROFILE ?? 'default');
  const errors = checkProfile(profile, name);
  if (errors.length > 0) return { ok: false, errors };

  const { connectionOptions, namespace } = toClientOptions(profile);
  return {
    ok: true,
    settings: {
      connection: {
        address: connectionOptions.address ?? DEFAULT_TEMPORAL_ADDRESS,
        ...(connectionOptions.tls != null ? { tls: connectionOptions.tls } : {}),
        ...(connectionOptions.apiKey !== undefined ? { apiKey: connectionOptions.apiKey } : {}),
        ...(profile.grpcMeta !== undefined ? { metadata: profile.grpcMeta } : {}),
      },
      namespace: namespace ?? DEFAULT_TEMPORAL_NAMESPACE,
    },
  };
}

/** Names a setting the way its user wrote it: the environment variable, else the TOML key. */
type SettingNamer = (envName: string, tomlKey: string) => string;

function settingNamer(env: Env, file: string, profile: string): SettingNamer {
  return (envName, tomlKey) => (env[envName] !== undefined ? envName : `${tomlKey} (profile "${profile}" of ${file})`);
}

function checkProfile(profile: ClientConfigProfile, name: SettingNamer): string[] {
  const errors: string[] = [];
  const tls = profile.tls;
  const sourceName = (setting: (typeof TLS_FILES)[number], source: ConfigDataSource) =>
    'path' in source ? name(`${setting.env}_PATH`, `tls.${setting.toml}_path`) : name(`${setting.env}_DATA`, `tls.${setting.toml}_data`);

  for (const setting of TLS_FILES) {
    const source = tls?.[setting.field];
    if (!source) continue;
    const problem = pemProblem(source, setting.pem);
    if (problem) errors.push(`${sourceName(setting, source)}: ${problem}`);
  }
  const [cert, key] = [tls?.clientCert, tls?.clientKey];
  if (key && !cert) {
    errors.push(`${sourceName(TLS_FILES[1], key)}: a client key needs its certificate too (TEMPORAL_TLS_CLIENT_CERT_PATH)`);
  }
  if (cert && !key) {
    errors.push(`${sourceName(TLS_FILES[0], cert)}: a client certificate needs its private key too (TEMPORAL_TLS_CLIENT_KEY_PATH)`);
  }
  if (tls?.disabled) {
    const tlsName = name('TEMPORAL_TLS', 'tls.disabled');
    if (profile.apiKey !== undefined) {
      errors.push(`${name('TEMPORAL_API_KEY', 'api_key')}: an API key is only sent over TLS; remove ${tlsName}=false (TLS is on by default with an API key)`);
    }
    const given = TLS_FILES.filter((setting) => tls[setting.field]).map((setting) => sourceName(setting, tls[setting.field]!));
    if (tls.serverName) given.push(name('TEMPORAL_TLS_SERVER_NAME', 'tls.server_name'));
    if (given.length > 0) errors.push(`${tlsName}: TLS is turned off, yet ${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} set`);
  }
  if (profile.apiKey === '') errors.push(`${name('TEMPORAL_API_KEY', 'api_key')}: is empty`);
  if (profile.address === '') errors.push(`${name('TEMPORAL_ADDRESS', 'address')}: is empty`);
  if (profile.namespace === '') errors.push(`${name('TEMPORAL_NAMESPACE', 'namespace')}: is empty`);
  return errors;
}

/** Why a certificate or key source is unusable (a missing file, no PEM content), or null. */
function pemProblem(source: ConfigDataSource, kind: string): string | null {
  let text: string;
  if ('path' in source) {
    if (!existsSync(source.path)) return `no file at ${source.path}`;
    if (!statSync(source.path).isFile()) return `${source.path} is not a file`;
    try {
      text = readFileSync(source.path, 'utf8');
    } catch (error) {
      return `cannot read ${source.path}: ${message(error)}`;
    }
  } else {
    text = typeof source.data === 'string' ? source.data : Buffer.from(source.data).toString('utf8');
  }
  return text.includes('-----BEGIN ') ? null : `is not a PEM ${kind} (no "-----BEGIN" line)`;
}

function definedOnly(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function failure(error: string): Result {
  return { ok: false, errors: [error] };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
