import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ParsingJobEntity } from '../../src/lab-reports/lab-report.entities';
import { LabReportsRepository } from '../../src/lab-reports/lab-reports.repository';
import { createTeam, createUser, migratedScratchDatabase, type Team } from '../helpers/repository-db';

/** LabReportsRepository on a database of this file's own: the reconciler's `unstarted` reads every team's jobs. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: LabReportsRepository;
let team: Team;
let userId: string;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_lab_reports');
  db = scratch.db;
  repo = new LabReportsRepository(db);
  team = await createTeam(db);
  userId = await createUser(db, team.teamId);
});
afterAll(() => scratch?.drop());

async function job(fields: Partial<ParsingJobEntity> = {}): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await db.transaction((manager) =>
    repo.insertJob(
      manager,
      Object.assign(new ParsingJobEntity(), {
        id,
        teamId: team.teamId,
        environment: 'sandbox',
        userId,
        status: 'started',
        failureReason: null,
        needsHumanReview: false,
        isReviewed: false,
        fileKind: 'pdf',
        fileSize: 3,
        dataEnc: null,
        workflowStartedAt: null,
        createdAt: now,
        updatedAt: now,
        ...fields,
      }),
      Buffer.from('pdf'),
    ),
  );
  return id;
}
const transition = (id: string, from: ParsingJobEntity['status'][], change: Parameters<LabReportsRepository['transition']>[3]) =>
  db.transaction((manager) => repo.transition(manager, id, from, change));

it('moves a job only from the states given, so a retried step changes nothing', async () => {
  const id = await job();
  expect(await transition(id, ['started'], { status: 'pending_review', dataEnc: 'data' } as never)).toMatchObject({
    status: 'pending_review',
    dataEnc: 'data',
  });
  expect(await transition(id, ['started'], { status: 'failed', failureReason: 'processing_error' } as never)).toBeNull();
  expect(await transition(id, ['pending_review'], { status: 'completed', isReviewed: true } as never)).toMatchObject({
    status: 'completed',
    isReviewed: true,
    dataEnc: 'data',
  });
  expect(await transition(randomUUID(), ['started'], { status: 'completed' } as never)).toBeNull();
});

it("keeps a step's first output: a step run again after a crash finds it", async () => {
  const id = await job();
  await repo.saveArtifact(id, 'extracted', Buffer.from('first'));
  await repo.saveArtifact(id, 'extracted', Buffer.from('second'));
  expect((await repo.readArtifact(id, 'extracted'))?.toString()).toBe('first');
  expect(await repo.readArtifact(id, 'parsed')).toBeNull();
  expect((await repo.readFile(id))?.toString()).toBe('pdf');
});

it('lists jobs without a confirmed workflow older than the grace, oldest first; a confirmation keeps its first time', async () => {
  const old = await job({ createdAt: new Date(Date.now() - 120_000) });
  const older = await job({ createdAt: new Date(Date.now() - 240_000) });
  const recent = await job();
  const started = await job({ createdAt: new Date(Date.now() - 300_000) });
  await repo.markWorkflowStarted(started);
  const [{ workflow_started_at: first }] = await db.query(`SELECT workflow_started_at FROM lab_report_parsing_jobs WHERE id = $1`, [started]);
  await repo.markWorkflowStarted(started);
  expect(await db.query(`SELECT workflow_started_at FROM lab_report_parsing_jobs WHERE id = $1`, [started])).toEqual([{ workflow_started_at: first }]);

  const unstarted = (await repo.unstarted(60_000, 10)).map((item) => item.id);
  expect(unstarted.filter((id) => [old, older, recent, started].includes(id))).toEqual([older, old]);
  expect(await repo.unstarted(60_000, 1)).toHaveLength(1);
});

it('finds a job within its own team and environment only', async () => {
  const id = await job();
  expect((await repo.findScoped({ teamId: team.teamId, environment: 'sandbox' }, id))?.id).toBe(id);
  expect(await repo.findScoped({ teamId: team.teamId, environment: 'production' }, id)).toBeNull();
  expect(await repo.findScoped({ teamId: (await createTeam(db)).teamId, environment: 'sandbox' }, id)).toBeNull();
});
