// Checks docker-compose.yml with a real Compose client: `docker compose config` resolves and
// validates the file against the Compose specification, then the resolved JSON is checked for
// what the stack needs to start (healthchecks, the bootstrap, persistence, the build context).
//
//   node scripts/check-compose.mjs
//
// Not part of npm test: it needs a Compose client (`docker compose`, `docker-compose`, or
// $COMPOSE / ~/.cache/labflow/bin/docker-compose) but no Docker engine. Exit code 1 on a problem,
// 2 when no client is found. Compose v1 (Debian's docker-compose 1.29) predates the top-level
// `name`: it gets a copy without that line, and its resolved YAML is read through python3's yaml
// module (a dependency of docker-compose 1.x).
import { execFileSync } from 'node:child_process';
import console from 'node:console';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function findClient() {
  const candidates = [
    process.env.COMPOSE ? [process.env.COMPOSE] : null,
    ['docker', 'compose'],
    ['docker-compose'],
    [join(homedir(), '.cache', 'labflow', 'bin', 'docker-compose')],
  ].filter(Boolean);
  for (const command of candidates) {
    try {
      execFileSync(command[0], [...command.slice(1), 'version'], { stdio: 'ignore' });
      return command;
    } catch {
      // not this one
    }
  }
  return null;
}

const client = findClient();
if (!client) {
  console.error('check-compose: no Compose client (docker compose, docker-compose, $COMPOSE); nothing checked.');
  process.exit(2);
}
const env = { ...process.env, PHI_ENCRYPTION_KEY: process.env.PHI_ENCRYPTION_KEY ?? randomBytes(32).toString('base64') };
const compose = (file, args) => execFileSync(client[0], [...client.slice(1), '-f', file, ...args], { env, cwd: ROOT, encoding: 'utf8' });
const version = execFileSync(client[0], [...client.slice(1), 'version', '--short'], { encoding: 'utf8' }).trim();
const file = join(ROOT, 'docker-compose.yml');
let config;
if (/^v?1\./.test(version)) {
  const copy = join(mkdtempSync(join(tmpdir(), 'check-compose-')), 'docker-compose.yml');
  writeFileSync(copy, readFileSync(file, 'utf8').replace(/^name: .*$/m, ''));
  const resolved = compose(copy, ['--project-directory', ROOT, 'config']);
  config = JSON.parse(
    execFileSync('python3', ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'], { input: resolved, encoding: 'utf8' }),
  );
} else {
  config = JSON.parse(compose(file, ['config', '--format', 'json']));
}
console.log(`check-compose: ${client.join(' ')} ${version}: the file is valid`);
const problems = [];
const check = (ok, what) => {
  if (!ok) problems.push(what);
};
const services = config.services ?? {};
const has = (name) => check(Boolean(services[name]), `service ${name} is missing`);
for (const name of ['postgres', 'redis', 'temporal', 'mailpit', 'bootstrap', 'api', 'management', 'worker', 'hl7', 'sandbox-lab', 'demo-patient']) has(name);

const temporalHealth = services.temporal?.healthcheck?.test ?? [];
check(temporalHealth[1] === 'temporal', `temporal healthcheck runs "${temporalHealth[1]}": the image's CLI is "temporal" on PATH (/usr/local/bin)`);
check(!services.temporal?.user, 'temporal runs as the image user, not as root');

const bootstrap = services.bootstrap ?? {};
check(/migrate\.js.*bootstrap\.js/.test((bootstrap.command ?? []).join(' ')), 'bootstrap migrates, then bootstraps');
check(bootstrap.restart === 'no', 'bootstrap is one-shot');
for (const name of ['api', 'management', 'worker']) {
  check(services[name]?.depends_on?.bootstrap?.condition === 'service_completed_successfully', `${name} waits for bootstrap to complete`);
  check(services[name]?.environment?.PUBLIC_API_URL === 'http://localhost:8000', `${name} has PUBLIC_API_URL http://localhost:8000 (the published API port)`);
}

// The portal's one-time codes are e-mailed: without SMTP a production-mode stack cannot send them.
for (const name of ['api', 'worker']) {
  check(
    services[name]?.environment?.SMTP_URL === 'smtp://mailpit:1025',
    `${name} sends e-mail to the mailpit service (SMTP_URL ${services[name]?.environment?.SMTP_URL})`,
  );
}
check(
  (services.mailpit?.ports ?? []).some((port) => (typeof port === 'string' ? port : `${port.published}:${port.target}`).includes('8025:8025')),
  'mailpit publishes its inbox on 8025',
);
const demoPatient = services['demo-patient'] ?? {};
check(/compose-demo-patient\.js http:\/\/api:8000/.test((demoPatient.command ?? []).join(' ')), 'demo-patient calls the API by its service name');
check(demoPatient.restart === 'no', 'demo-patient is one-shot');
for (const name of ['api', 'worker']) check(demoPatient.depends_on?.[name]?.condition === 'service_healthy', `demo-patient waits for ${name} to be healthy`);
check(existsSync(join(ROOT, 'scripts', 'compose-demo-patient.ts')), 'scripts/compose-demo-patient.ts exists');

// HL7 labs: the listener (worker role hl7) publishes its MLLP port; the sandbox lab (worker role
// sandbox-hl7-lab) sends its results to the listener by service name.
const published = (service, port) =>
  (services[service]?.ports ?? []).some((entry) => (typeof entry === 'string' ? entry : `${entry.published}:${entry.target}`).endsWith(`${port}:${port}`));
check(services.hl7?.environment?.WORKER_ROLES === 'hl7', 'hl7 runs the worker role hl7 only');
check(published('hl7', 2575), 'hl7 publishes the MLLP listener on 2575');
check(services['sandbox-lab']?.environment?.WORKER_ROLES === 'sandbox-hl7-lab', 'sandbox-lab runs the worker role sandbox-hl7-lab only');
check(services['sandbox-lab']?.environment?.SANDBOX_HL7_LAB_RESULTS_TO === 'hl7:2575', 'sandbox-lab sends its results to the hl7 service');
check(services['sandbox-lab']?.depends_on?.hl7?.condition === 'service_healthy', 'sandbox-lab waits for the listener');
check(!/(^|,)\s*(hl7|sandbox-hl7-lab)\s*(,|$)/.test(services.worker?.environment?.WORKER_ROLES ?? ''), 'the worker service does not also run the HL7 roles');

const redis = services.redis ?? {};
check((redis.command ?? []).join(' ').includes('--appendonly yes'), 'redis keeps an append-only file');
const mounts = (redis.volumes ?? []).map((volume) => (typeof volume === 'string' ? volume : `${volume.source}:${volume.target}`));
check(
  mounts.some((mount) => mount.startsWith('redis-data:/data')),
  'redis /data is the redis-data volume',
);

const codecUrl = (services.temporal?.command ?? []).find((arg) => arg.startsWith('--ui-codec-endpoint='))?.split('=')[1];
const origins = services.management?.environment?.CODEC_CORS_ORIGINS?.split(',') ?? [];
check(codecUrl === 'http://localhost:8001/codec', `the UI's codec endpoint is the published management port (${codecUrl})`);
check(origins.includes('http://localhost:8233'), 'the management API allows the UI origin on /codec');

const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim());
for (const entry of ['node_modules', '.labflow', 'dist', '.git']) check(ignored.includes(entry), `.dockerignore keeps ${entry} out of the build context`);
check(existsSync(join(ROOT, 'scripts', 'bootstrap.ts')), 'scripts/bootstrap.ts exists');

// The cluster override (docker-compose.cluster.yml): the Temporal server on PostgreSQL.
const clusterFile = join(ROOT, 'docker-compose.cluster.yml');
let cluster;
if (/^v?1\./.test(version)) {
  const dir = mkdtempSync(join(tmpdir(), 'check-compose-'));
  writeFileSync(join(dir, 'docker-compose.yml'), readFileSync(file, 'utf8').replace(/^name: .*$/m, ''));
  const resolved = execFileSync(
    client[0],
    [...client.slice(1), '-f', join(dir, 'docker-compose.yml'), '-f', clusterFile, '--project-directory', ROOT, 'config'],
    { env, cwd: ROOT, encoding: 'utf8' },
  );
  cluster = JSON.parse(
    execFileSync('python3', ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'], { input: resolved, encoding: 'utf8' }),
  );
} else {
  cluster = JSON.parse(
    execFileSync(client[0], [...client.slice(1), '-f', file, '-f', clusterFile, 'config', '--format', 'json'], { env, cwd: ROOT, encoding: 'utf8' }),
  );
}
console.log('check-compose: docker-compose.yml + docker-compose.cluster.yml: valid together');
const clustered = cluster.services ?? {};
check(/^temporalio\/server:1\.29/.test(clustered.temporal?.image ?? ''), `cluster: temporal runs the Temporal server image (${clustered.temporal?.image})`);
check((clustered.temporal?.command ?? []).length === 0, 'cluster: the dev server command is gone');
check(clustered.temporal?.environment?.DB === 'postgres12', 'cluster: the server persists in PostgreSQL');
check(clustered['temporal-schema']?.depends_on?.postgres?.condition === 'service_healthy', 'cluster: the schema job waits for postgres');
check(clustered.temporal?.depends_on?.['temporal-schema']?.condition === 'service_completed_successfully', 'cluster: the server waits for its schema');
check(clustered['temporal-ui']?.network_mode === 'service:temporal', 'cluster: the UI listens on the published 8233 of the temporal service');
for (const name of ['bootstrap', 'api', 'management', 'worker', 'hl7', 'sandbox-lab']) {
  check(
    clustered[name]?.depends_on?.['temporal-setup']?.condition === 'service_completed_successfully',
    `cluster: ${name} waits for the namespaces and search attributes`,
  );
}
const sas = (clustered['temporal-setup']?.command ?? []).join(' ');
for (const sa of ['LabflowTeamId', 'LabflowOrderStatus', 'LabflowCollectionMethod', 'LabflowLab', 'LabflowLabReportStatus']) {
  check(sas.includes(sa), `cluster: temporal-setup registers ${sa}`);
}

if (problems.length) {
  for (const problem of problems) console.error(`check-compose: ${problem}`);
  process.exit(1);
}
console.log(
  `check-compose: ok (${Object.keys(services).length} services: ${Object.keys(services).join(', ')}; volumes: ${Object.keys(config.volumes ?? {}).join(', ')})`,
);
