/**
 * Bulk import as a background job (the importFile mutation): the uploaded JSONL is checked line by
 * line when it is queued (a bad line is refused then, naming it), stored with the job until it is
 * DONE or FAILED, and imported by whichever process claims the job, which records (and so publishes)
 * how far it has got after every batch. Stopped early (shutdown, lost lease), it stops after a batch;
 * run again, it continues from the first line not written.
 */
import { userContext, type AgentContext } from '../../auth/agent-context.js';
import { requireIdentity } from '../../auth/scope.js';
import type { Job } from '../../db/generated/client.js';
import { isAppError, PayloadTooLargeError, ValidationError } from '../../errors.js';
import { RUN_ONLY_INPUT, type JobQueue } from '../../jobs/job-queue.js';
import { JobReleased } from '../../jobs/job-worker.js';
import { prepareItem } from '../memory/ingest.js';
import { importMemory, type ImportDeps, type ImportProgress, type ImportResult, type ImportSettings } from './import-memory.js';
import { lineError, parseLine, textSource } from './jsonl.js';

export const IMPORT_JOB = 'import';

/** An import job's `progress`. */
interface ImportJobProgress {
  stage: ImportProgress['stage'];
  /** Lines of the file. */
  total: number;
  /** Lines done (written, skipped or blank): the import resumes after them. */
  done: number;
  /** Rows written, over all attempts. */
  rows: number;
}

interface ImportPayload {
  name: string;
  /** The file's text (dropped from the row once the job is DONE or FAILED). */
  [RUN_ONLY_INPUT]: string;
  /** Queued by an admin: shared rows (`shared: true`, checked when queued) are allowed. */
  admin: boolean;
}

export type ImportJobDeps = ImportDeps & { queue: JobQueue; settings: ImportSettings };

/**
 * Checks an uploaded JSONL file (UTF-8 text, at most `maxBytes`, every line an item the caller may
 * write) and queues its import as the caller. Nothing is written until the job runs.
 */
export async function requestImport(queue: JobQueue, ctx: AgentContext, file: { name: string; bytes: Uint8Array }, maxBytes: number): Promise<Job> {
  requireIdentity(ctx, 'import memory');
  if (file.bytes.length > maxBytes) throw new PayloadTooLargeError(maxBytes, 'File');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(file.bytes);
  } catch {
    text = '\0';
  }
  if (text.includes('\0')) throw notJsonl('not UTF-8 text');
  const source = textSource(file.name, text);
  let items = 0;
  for await (const { line, text: content } of source.lines(1)) {
    let item;
    try {
      item = parseLine(content, `${line}`);
    } catch (error) {
      // A first line that is no JSON object: not a JSONL file at all, rather than a bad line.
      if (items === 0 && error instanceof ValidationError) throw notJsonl(error.message);
      throw error;
    }
    if (!item) continue;
    try {
      prepareItem(ctx, item, [], {});
    } catch (error) {
      if (isAppError(error)) throw lineError(`${line}`, error.message);
      throw error;
    }
    items += 1;
  }
  if (items === 0) throw notJsonl('no JSON lines');
  const payload: ImportPayload = { name: file.name, [RUN_ONLY_INPUT]: text, admin: ctx.isAdmin };
  return queue.enqueue({ kind: IMPORT_JOB, tenantId: ctx.tenantId, userId: ctx.userId, payload: { ...payload } });
}

function notJsonl(why: string): ValidationError {
  return new ValidationError(`file: not a JSONL file (${why})`, [{ path: ['file'], message: `not a JSONL file (${why})` }]);
}

/** The job: imports its file from the first line not yet done, saving its progress after every batch. */
export function importHandler(deps: ImportJobDeps) {
  return async (job: Job, signal: AbortSignal): Promise<ImportResult & { rows: number }> => {
    const payload = job.payload as unknown as ImportPayload;
    const before = (job.progress ?? null) as ImportJobProgress | null;
    const ctx = { ...userContext(job.tenantId, job.userId), isAdmin: payload.admin };
    const source = textSource(payload.name, payload[RUN_ONLY_INPUT]);
    let progress: ImportJobProgress = { stage: 'loading', total: source.total, done: before?.done ?? 0, rows: before?.rows ?? 0 };
    const result = await importMemory(deps, ctx, source, deps.settings, {
      fromLine: progress.done + 1,
      source: { jobId: job.id },
      onProgress: async (p) => {
        progress = { stage: p.stage, total: p.total, done: p.nextLine - 1, rows: (before?.rows ?? 0) + p.rows };
        // Not held any more, or stopping: handed back after this batch.
        if (!(await deps.queue.progress(job.id, progress)) || signal.aborted) throw new JobReleased();
      },
    });
    return { ...result, rows: progress.rows };
  };
}
