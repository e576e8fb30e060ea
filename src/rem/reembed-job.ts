/**
 * Re-embedding as a background job: `reembed` over a user's rows, or an admin's whole tenant,
 * recording on the job row how far it has got. Stopped early (shutdown, lost lease), it stops
 * between two batches; run again, it finds only the rows still without a vector and continues the
 * counts from the progress it stored.
 */
import { userContext, type AgentContext } from '../auth/agent-context.js';
import { requireIdentity } from '../auth/scope.js';
import type { Job } from '../db/generated/client.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { JobReleased } from '../jobs/job-worker.js';
import type { MemoryDeps, MemoryTable } from './memory/kinds.js';
import { reembed, type ReembedResult } from './memory/reembed.js';

export const REEMBED_JOB = 'reembed';

/** Least time between two progress writes of a job (the first batch and the end are always written). */
const PROGRESS_EVERY_MS = 250;

/** Whose rows a job re-embeds: its user's, or (queued by an admin) the whole tenant's. */
type ReembedScope = 'user' | 'tenant';

/** A reembed job's `progress`: counts over all its attempts. */
export interface ReembedProgress {
  /** The table of the last batch; null before the first. */
  table: MemoryTable | null;
  /** Rows looked at. */
  scanned: number;
  /** Rows that got a vector. */
  embedded: number;
}

export type ReembedJobDeps = MemoryDeps & { queue: JobQueue; batchSize: number };

/** Queues a re-embed of the caller's rows (admins: the whole tenant); one open job per tenant and scope. */
export async function requestReembed(queue: JobQueue, ctx: AgentContext): Promise<Job> {
  requireIdentity(ctx, 're-embed memory');
  const scope: ReembedScope = ctx.isAdmin ? 'tenant' : 'user';
  return queue.enqueue({
    kind: REEMBED_JOB,
    tenantId: ctx.tenantId,
    // A whole-tenant job belongs to the tenant, not to the admin who asked: every admin of it sees the one open job.
    userId: scope === 'tenant' ? null : ctx.userId,
    payload: { scope, requestedBy: ctx.userId },
    dedupeKey: `reembed:${JSON.stringify(scope === 'tenant' ? [ctx.tenantId] : [ctx.tenantId, ctx.userId])}`,
  });
}

/** The job: re-embeds its scope, writing progress after a batch at most every PROGRESS_EVERY_MS. */
export function reembedHandler(deps: ReembedJobDeps) {
  return async (job: Job, signal: AbortSignal): Promise<ReembedResult> => {
    const before = storedProgress(job.progress);
    let progress = before;
    let savedAt = -Infinity;
    const save = async () => {
      savedAt = performance.now();
      if (!(await deps.queue.progress(job.id, progress))) throw new JobReleased();
    };
    const result = await reembed(deps, reembedContext(job), {
      batchSize: deps.batchSize,
      onProgress: async (p) => {
        progress = { table: p.table, scanned: before.scanned + p.scanned, embedded: before.embedded + p.embedded };
        if (signal.aborted) {
          // Saved before stopping, so that the next attempt's counts start from here.
          await save();
          throw new JobReleased();
        }
        if (performance.now() - savedAt >= PROGRESS_EVERY_MS) await save();
      },
    });
    await save();
    return { ...result, embedded: progress.embedded };
  };
}

/** Whom the job works for: its user, or the tenant as an admin when an admin queued it (checked then). */
function reembedContext(job: Job): AgentContext {
  const ctx = userContext(job.tenantId, job.userId);
  return (job.payload as { scope?: ReembedScope }).scope === 'tenant' ? { ...ctx, isAdmin: true } : ctx;
}

function storedProgress(stored: unknown): ReembedProgress {
  const p = (stored ?? {}) as Partial<ReembedProgress>;
  return { table: p.table ?? null, scanned: p.scanned ?? 0, embedded: p.embedded ?? 0 };
}
