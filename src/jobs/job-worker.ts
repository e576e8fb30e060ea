import type { Config } from '../config/config.js';
import type { Job } from '../db/generated/client.js';
import { isAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { JobQueue } from './job-queue.js';

/**
 * Runs one job. `signal` aborts when the process shuts down (or lost the job's lease): a handler
 * then stops at a safe point and throws `JobReleased`, and the job is continued later from what
 * it stored. Handlers are written to resume: work already stored is not done again.
 */
export type JobHandler = ((job: Job, signal: AbortSignal) => Promise<unknown>) & {
  /**
   * Called once the job is FAILED for good (out of attempts, or its process died each time it ran),
   * so the work it stood for (an inbound email, say) is not left looking as if still under way.
   */
  onGiveUp?: (job: Job, error: JobError) => Promise<void>;
};

/** Why a job failed, as stored on it. */
export interface JobError {
  code: string;
  message: string;
}

/** A handler stopped early on purpose (shutdown); the job goes back to the queue unfinished. */
export class JobReleased extends Error {
  constructor() {
    super('The job was handed back unfinished');
    this.name = 'JobReleased';
  }
}

/** JOB_POLL_MS, JOB_LEASE_MS, JOB_CONCURRENCY, JOB_MAX_ATTEMPTS (config/workflow.ts). */
export type JobWorkerSettings = Pick<Config['workflow']['jobs'], 'pollMs' | 'leaseMs' | 'concurrency' | 'maxAttempts'>;

/** Claims and runs jobs of the kinds it has handlers for, renewing their leases while they run. */
export class JobWorker {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private poll?: NodeJS.Timeout;
  private renewal?: NodeJS.Timeout;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly queue: JobQueue,
    private readonly handlers: Record<string, JobHandler>,
    private readonly settings: JobWorkerSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (Object.keys(this.handlers).length === 0) return;
    this.poll = setInterval(() => this.wake(), this.settings.pollMs);
    this.renewal = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.settings.leaseMs / 3)));
    this.poll.unref();
    this.renewal.unref();
    this.wake();
  }

  /** Looks for work now (after an enqueue on this process) rather than at the next poll. */
  wake(): void {
    if (this.stopped || Object.keys(this.handlers).length === 0) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.fill()
      .catch((error) => this.logger.warn({ err: error }, 'could not claim jobs'))
      .finally(() => {
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Stops claiming, asks running handlers to stop at a safe point and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    clearInterval(this.renewal);
    await this.ticking;
    for (const { controller } of this.running.values()) controller.abort('shutdown');
    if (this.running.size) this.logger.info({ jobIds: [...this.running.keys()] }, 'asked running jobs to stop at a safe point; waiting for them');
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  private async fill() {
    const kinds = Object.keys(this.handlers);
    while (!this.stopped && this.running.size < this.settings.concurrency) {
      const job = await this.queue.claim(kinds, this.settings.leaseMs);
      if (!job) return;
      const controller = new AbortController();
      const done = this.run(job, controller.signal).finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
      this.running.set(job.id, { controller, done });
    }
  }

  private async run(job: Job, signal: AbortSignal) {
    // Failures stop at maxAttempts, and a job handed back at shutdown keeps its count: a job claimed
    // beyond it was taken over from processes that died running it, each time. Not run again, so
    // a job that kills its server does not do so for ever.
    if (job.attempts > this.settings.maxAttempts) {
      const message = `The process running the job stopped on each of its ${job.attempts - 1} attempts; not tried again`;
      this.logger.error({ jobId: job.id, kind: job.kind, attempts: job.attempts - 1 }, 'gave up a job whose process stopped each time it ran');
      return this.giveUp(job, { code: 'INTERRUPTED', message });
    }
    try {
      const result = await this.handlers[job.kind]!(job, signal);
      await this.queue.finish(job.id, result);
    } catch (error) {
      if (error instanceof JobReleased || signal.aborted)
        return this.queue.release(job.id).catch((e) => this.logger.warn({ err: e, jobId: job.id }, 'could not release a job'));
      const known = isAppError(error) ? { code: error.code, message: error.message } : { code: 'INTERNAL', message: 'The job failed unexpectedly' };
      if (!isAppError(error)) this.logger.error({ err: error, jobId: job.id, kind: job.kind }, 'job failed');
      if (job.attempts >= this.settings.maxAttempts) return this.giveUp(job, known);
      await this.queue
        .fail(job.id, known, 1000 * 2 ** (job.attempts - 1))
        .catch((e) => this.logger.warn({ err: e, jobId: job.id }, 'could not record a job failure'));
    }
  }

  /** FAILED for good, then the job's kind is told (its hook's own failure is logged, not retried). */
  private async giveUp(job: Job, error: JobError) {
    try {
      await this.queue.fail(job.id, error, null);
      await this.handlers[job.kind]?.onGiveUp?.(job, error);
    } catch (e) {
      this.logger.warn({ err: e, jobId: job.id, kind: job.kind }, 'could not record that a job was given up');
    }
  }

  private async renew() {
    try {
      for (const id of await this.queue.renew([...this.running.keys()], this.settings.leaseMs)) {
        this.logger.warn({ jobId: id }, 'lost a job’s lease; stopping it here');
        this.running.get(id)?.controller.abort('lost');
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not renew job leases');
    }
  }
}
