import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { applyMigrations } from '../db/migrations.js';
import { connectionRoom, sharePool } from './connection-share.js';
import type { Logger } from '../logger.js';

/** What a worker sends the primary once its app serves. */
export interface WorkerReady {
  remgraph: 'ready';
  url: string;
}

function isWorkerReady(message: unknown): message is WorkerReady {
  return typeof message === 'object' && message !== null && (message as WorkerReady).remgraph === 'ready';
}

export interface Primary {
  /** The GraphQL endpoint every worker serves. */
  url: string;
  /** Process ids of the workers running now. */
  pids(): number[];
  /** Sends every worker SIGTERM (each stops as a single server does) and waits until all have exited. */
  stop(): Promise<void>;
}

/** First pause before replacing a worker that died before it served; it doubles on each such death in a row. */
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;
/** How long past SHUTDOWN_GRACE_MS a stopping worker may take before it is killed. */
const STOP_MARGIN_MS = 10_000;

/**
 * The primary process of `serve --workers N`: applies pending migrations once, sizes the workers'
 * pools so that all of them fit in the connections PostgreSQL accepts, then forks N workers
 * that each run the whole app (`entry`, this CLI) on the same port, where node:cluster hands them
 * connections in turn. It does no request work itself. A worker that dies is logged and replaced;
 * the turn trees it held are free at once for the others (its liveness lock went with its
 * PostgreSQL connection): there, turns it was streaming end INTERRUPTED and paused ones continue
 * once decided, as after any crash. Resolves once every worker serves; if one dies before that,
 * stops the others and rejects.
 */
export async function startPrimary(config: Config, logger: Logger, entry: string): Promise<Primary> {
  await migrateOnce(config, logger);
  const share = sharePool(await connectionRoom(config.database.url!), config.workers.count, config.database);
  if (share.notice) logger[share.notice.level]({ poolSize: share.poolSize }, share.notice.message);
  cluster.setupPrimary({ exec: entry });
  const pool = new WorkerPool(logger, config.server.shutdownGraceMs + STOP_MARGIN_MS, { DATABASE_POOL_SIZE: String(share.poolSize) });
  try {
    const url = await pool.start(config.workers.count);
    return { url, pids: () => pool.pids(), stop: () => pool.stop() };
  } catch (error) {
    await pool.stop();
    throw error;
  }
}

async function migrateOnce(config: Config, logger: Logger) {
  const db = await openDatabase(config.database);
  try {
    const applied = await applyMigrations(db);
    if (applied.length) logger.info({ migrations: applied }, 'applied database migrations');
  } finally {
    await db.close();
  }
}

class WorkerPool {
  private stopping = false;
  /** Off while the first workers start: a death then ends the start instead. */
  private replacing = false;
  private startFailure: Error | undefined;
  private diedBeforeServing = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly stopTimeoutMs: number,
    /** Settings each worker gets on top of this process's environment. */
    private readonly env: Record<string, string>,
  ) {}

  /** Starts `count` workers; resolves with the URL they serve once all do, rejects if any exits meanwhile. */
  async start(count: number): Promise<string> {
    const started = await Promise.allSettled(Array.from({ length: count }, () => this.fork()));
    if (this.startFailure) throw this.startFailure;
    this.replacing = true;
    return (started[0] as PromiseFulfilledResult<string>).value;
  }

  /** Starts a worker; resolves with its URL once it serves, rejects if it exits first. */
  private fork(): Promise<string> {
    const worker = cluster.fork(this.env);
    const pid = worker.process.pid;
    return new Promise<string>((resolve, reject) => {
      let serving = false;
      worker.on('message', (message: unknown) => {
        if (!isWorkerReady(message) || serving) return;
        serving = true;
        this.diedBeforeServing = 0;
        resolve(message.url);
      });
      worker.once('exit', (code, signal) => {
        const how = signal ?? `code ${code}`;
        if (!serving) reject(new Error(`worker ${pid} exited (${how}) before it served`));
        if (this.stopping) return;
        if (!this.replacing) {
          this.startFailure ??= new Error(`worker ${pid} exited (${how}) while the workers started`);
        } else if (serving) {
          this.logger.error({ pid, code, signal }, 'worker died: starting a replacement (the other workers take over its turn trees)');
          this.replace();
        } else this.replaceLater();
      });
    });
  }

  pids(): number[] {
    return this.workers().flatMap((w) => (w.process.pid === undefined ? [] : [w.process.pid]));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retry);
    await Promise.all(this.workers().map((worker) => this.stopWorker(worker)));
  }

  private replace() {
    this.fork().then(
      () => this.logger.info({ pids: this.pids() }, 'replacement worker serving'),
      (error: Error) => this.logger.error({ err: error }, 'replacement worker failed to start'),
    );
  }

  /** A worker that dies before serving will likely die again (the database is down, say): retry with growing pauses. */
  private replaceLater() {
    const delay = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** this.diedBeforeServing++);
    this.retry = setTimeout(() => this.replace(), delay);
  }

  private async stopWorker(worker: Worker) {
    if (worker.isDead()) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.process.kill('SIGTERM');
    const kill = setTimeout(() => {
      this.logger.warn({ pid: worker.process.pid }, 'worker did not stop in time: killing it');
      worker.process.kill('SIGKILL');
    }, this.stopTimeoutMs);
    await exited;
    clearTimeout(kill);
  }

  private workers(): Worker[] {
    return Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  }
}
