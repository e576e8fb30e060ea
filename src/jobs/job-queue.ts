import { Prisma, type Job, type PrismaClient } from '../db/generated/client.js';
import type { JobChange, RemPubSub } from '../events/pubsub.js';
import { storable } from '../events/storable.js';
import type { ProcessLiveness } from '../db/process-liveness.js';

export interface NewJob {
  kind: string;
  tenantId: string;
  userId: string | null;
  payload: Record<string, unknown>;
  /** While a job with this key is queued or running, enqueueing returns it instead of adding one. */
  dedupeKey?: string;
}

/**
 * The payload key of input only a run reads (an import's uploaded file): removed from the row once
 * the job is DONE or FAILED, so a large upload does not stay in the database.
 */
export const RUN_ONLY_INPUT = 'file';

/**
 * A job row as Prisma's model names it. The row the INSERT returns is the job as queued: read again
 * afterwards, a local worker polling in between may already have claimed it (RUNNING).
 */
const JOB_COLUMNS = Prisma.sql`id, kind, status, payload, result, error, progress, revision, dedupe_key AS "dedupeKey", attempts, runner,
  locked_until AS "lockedUntil", run_after AS "runAfter", tenant_id AS "tenantId", user_id AS "userId", created_at AS "createdAt",
  started_at AS "startedAt", finished_at AS "finishedAt"`;

/** The columns of a job's state, as published on `job:changed`. */
const STATE = Prisma.sql`id, revision, status, attempts, progress, result, error, started_at, finished_at`;

type StateRow = Omit<JobChange, 'startedAt' | 'finishedAt'> & { id: string; started_at: Date | null; finished_at: Date | null };

/**
 * The jobs table as a queue. A job is claimed by one process at a time with a conditional UPDATE
 * over `FOR UPDATE SKIP LOCKED` (concurrent claimers on PostgreSQL skip each other's rows; PGlite,
 * one connection, simply runs them one after another) and held under a lease the process renews;
 * a job whose process is known to have stopped (a kill, a crash: see ProcessLiveness), or whose
 * lease ran out, is claimed again at once, its attempt counted. Every change of a running job is
 * conditional on still holding it, bumps its `revision` and is published on `job:changed`.
 */
export class JobQueue {
  /** Told after every enqueue on this process (the local worker looks for work at once). */
  onEnqueued: () => void = () => {};

  constructor(
    private readonly prisma: PrismaClient,
    readonly processId: string,
    private readonly pubsub: RemPubSub,
    private readonly liveness: ProcessLiveness,
  ) {}

  async enqueue(job: NewJob): Promise<Job> {
    const [created] = await this.prisma.$queryRaw<Job[]>`
      INSERT INTO jobs (kind, payload, dedupe_key, tenant_id, user_id)
      VALUES (${job.kind}, ${JSON.stringify(storable(job.payload))}::jsonb, ${job.dedupeKey ?? null}, ${job.tenantId}, ${job.userId})
      ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('QUEUED', 'RUNNING') DO NOTHING
      RETURNING ${JOB_COLUMNS}`;
    if (created) {
      this.onEnqueued();
      return created;
    }
    const open = await this.prisma.job.findFirst({ where: { dedupeKey: job.dedupeKey!, status: { in: ['QUEUED', 'RUNNING'] } } });
    // Finished between the insert and this read: queue it again.
    return open ?? this.enqueue(job);
  }

  /** Takes the oldest runnable job of these kinds (queued, or running on a stopped process or under an expired lease), or null. */
  async claim(kinds: string[], leaseMs: number): Promise<Job | null> {
    const [claimed] = await this.prisma.$queryRaw<StateRow[]>`
      UPDATE jobs SET status = 'RUNNING', runner = ${this.processId}, attempts = attempts + 1, revision = revision + 1,
        locked_until = now() + ${leaseMs} * interval '1 millisecond', started_at = COALESCE(started_at, now())
      WHERE id = (
        SELECT id FROM jobs
        WHERE kind = ANY(${kinds}::text[]) AND run_after <= now()
          AND (status = 'QUEUED' OR (status = 'RUNNING' AND (locked_until < now() OR ${this.liveness.gone(Prisma.sql`runner`)})))
        ORDER BY created_at LIMIT 1
        FOR UPDATE SKIP LOCKED
      )
      RETURNING ${STATE}`;
    if (!claimed) return null;
    this.publish(claimed);
    return this.prisma.job.findUniqueOrThrow({ where: { id: claimed.id } });
  }

  /** Renews the leases of the jobs this process runs; returns the ids it no longer holds. */
  async renew(ids: string[], leaseMs: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const held = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE jobs SET locked_until = now() + ${leaseMs} * interval '1 millisecond'
      WHERE id = ANY(${ids}::uuid[]) AND runner = ${this.processId} AND status = 'RUNNING'
      RETURNING id`;
    return ids.filter((id) => !held.some((h) => h.id === id));
  }

  /** Records how far a running job has got; false when this process no longer holds it (the handler should stop). */
  async progress(id: string, progress: unknown): Promise<boolean> {
    const [held] = await this.prisma.$queryRaw<StateRow[]>`
      UPDATE jobs SET progress = ${JSON.stringify(storable(progress))}::jsonb, revision = revision + 1
      WHERE id = ${id}::uuid AND runner = ${this.processId} AND status = 'RUNNING'
      RETURNING ${STATE}`;
    if (held) this.publish(held);
    return held !== undefined;
  }

  async finish(id: string, result: unknown): Promise<void> {
    await this.settle(
      id,
      Prisma.sql`status = 'DONE', result = ${JSON.stringify(storable(result ?? null))}::jsonb, finished_at = now(), payload = payload - ${RUN_ONLY_INPUT}::text`,
    );
  }

  /** A failed attempt: queued again after `retryInMs`, or FAILED for good when that is null. */
  async fail(id: string, error: { code: string; message: string }, retryInMs: number | null): Promise<void> {
    const body = JSON.stringify(storable(error));
    await this.settle(
      id,
      retryInMs === null
        ? Prisma.sql`status = 'FAILED', error = ${body}::jsonb, finished_at = now(), payload = payload - ${RUN_ONLY_INPUT}::text`
        : Prisma.sql`status = 'QUEUED', error = ${body}::jsonb, run_after = now() + ${retryInMs} * interval '1 millisecond'`,
    );
  }

  /** Gives a job back unfinished (shutdown): it is claimed again at once, by this process after a restart or by another. */
  async release(id: string): Promise<void> {
    await this.settle(id, Prisma.sql`status = 'QUEUED', attempts = GREATEST(attempts - 1, 0)`);
  }

  private async settle(id: string, set: Prisma.Sql): Promise<void> {
    const [settled] = await this.prisma.$queryRaw<StateRow[]>`
      UPDATE jobs SET ${set}, runner = NULL, locked_until = NULL, revision = revision + 1
      WHERE id = ${id}::uuid AND runner = ${this.processId} AND status = 'RUNNING'
      RETURNING ${STATE}`;
    if (settled) this.publish(settled);
  }

  private publish({ id, started_at, finished_at, ...state }: StateRow): void {
    this.pubsub.publish('job:changed', id, { ...state, startedAt: started_at?.toISOString() ?? null, finishedAt: finished_at?.toISOString() ?? null });
  }
}
