/**
 * Starts the worker thread that opens the embedded database (pglite-worker.ts), without loading
 * PGlite on this thread: a server starts it first thing, so that the worker's WebAssembly and
 * PostgreSQL's start-up run while this thread loads PGlite's client side (pglite-thread.ts), Prisma
 * and the app's modules.
 */
import { Worker } from 'node:worker_threads';
import type { ArrayType } from './array-types.js';
import type { WorkerReply } from './pglite-worker.js';
import { temporaryDataDir } from './temporary-data-dir.js';
import { workerEntry } from '../worker-script.js';

const entry = workerEntry('pglite-worker', import.meta.url);

/**
 * The worker's JavaScript makes short-lived buffers and strings only (its data lives in PGlite's
 * WebAssembly memory): V8's default young generation (3 × 16 MB semi-spaces) fills with garbage
 * before a scavenge and stays resident. A small one keeps the worker's heap at a few MB.
 */
const WORKER_YOUNG_GENERATION_MB = 6;

/** A worker opening a data directory. */
export interface OpeningWorker {
  worker: Worker;
  /** Resolves with the database's array types once it is open; rejects when the worker fails to open it, errs or exits first. */
  opened: Promise<ArrayType[]>;
}

/** A database being opened: where, and by which worker. */
export interface SpawnedDatabase {
  dataDir: string;
  /** A `memory://` database: a private directory (temporary-data-dir.ts), removed on close. */
  temporary: boolean;
  template: string | undefined;
  opening: OpeningWorker;
}

/** Starts a worker opening `dataDir` (`memory://`: a private temporary directory), a new one as a copy of `template`. */
export async function spawnDatabase(dataDir: string, template?: string): Promise<SpawnedDatabase> {
  const temporary = dataDir.startsWith('memory://');
  const dir = temporary ? await temporaryDataDir() : dataDir;
  return { dataDir: dir, temporary, template, opening: spawnWorker(dir, template) };
}

/** A new worker opening the database in `dataDir`. */
export function spawnWorker(dataDir: string, template: string | undefined): OpeningWorker {
  const worker = new Worker(entry.script, {
    eval: entry.eval,
    workerData: { dataDir, template },
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  // Listening from the start: the worker's first message may come before anyone else listens.
  const opened = new Promise<ArrayType[]>((resolve, reject) => {
    const onReply = (reply: WorkerReply) => {
      if ('ready' in reply) resolve(reply.arrayTypes);
      else if ('failed' in reply) reject(new Error(`PGlite failed to open: ${reply.failed}`));
      else return;
      worker.off('message', onReply);
    };
    worker.on('message', onReply);
    worker.on('error', reject);
    worker.once('exit', (code) => reject(new Error(`PGlite worker exited (code ${code})`)));
  });
  // Failures reach whoever awaits it; this keeps one nobody awaits yet from being unhandled.
  opened.catch(() => {});
  return { worker, opened };
}
