/**
 * Bulk import of REM memory: JSONL lines in the `ingest` mutation's item shape, written in batches
 * (one statement per kind and batch, vectors computed per batch), resumable by line number. A large
 * import drops the vector index and the GIN indexes before loading and builds them once afterwards;
 * a smaller one keeps them maintained as rows arrive. Either way SEARCH, FUZZY and tag filters use
 * their indexes again when the import returns.
 */
import type { Config } from '../../config/config.js';
import type { AgentContext } from '../../auth/agent-context.js';
import type { Backend } from '../../db/database.js';
import type { SqlClient } from '../../db/sql-client.js';
import { flushGinPendingLists } from '../../db/gin-pending-lists.js';
import { isAppError, ValidationError } from '../../errors.js';
import type { MemorySource, Prepared } from '../memory/inputs.js';
import { prepareItem } from '../memory/ingest.js';
import { TABLE_OF, rowId, type MemoryDeps, type MemoryTable } from '../memory/kinds.js';
import { groupByFields } from '../memory/upsert.js';
import { planVectors, type PlannedVector } from '../memory/vectors.js';
import { lineError, parseLine, type ImportSource } from './jsonl.js';
import { dropGinIndexes, ensureGinIndexes } from './gin-indexes.js';
import { dropVectorIndex, ensureVectorIndex, shouldRebuild } from './vector-index.js';
import { batchWrite } from './write-batch.js';

export interface ImportDeps extends MemoryDeps {
  sql: SqlClient;
  backend: Backend;
}

/** IMPORT_BATCH_SIZE and IMPORT_REINDEX_THRESHOLD (config/rem.ts). */
export type ImportSettings = Config['rem']['import'];

export interface ImportProgress {
  /** LOADING rows, then INDEXING (building the vector index, when it was dropped). */
  stage: 'loading' | 'indexing';
  /** Lines of the whole source. */
  total: number;
  /** The first line not yet written: where to resume (`--from-line`). */
  nextLine: number;
  /** Rows written by this run. */
  rows: number;
  /** Bad lines skipped by this run. */
  skipped: number;
}

export interface ImportOptions {
  /** First line to import (1-based); the lines before it are not read. */
  fromLine?: number;
  /** Skip a bad line (told to onSkipped) rather than stop at it. */
  skipInvalid?: boolean;
  onProgress?: (progress: ImportProgress) => void | Promise<void>;
  onSkipped?: (error: ValidationError) => void;
  source?: MemorySource;
}

export interface ImportResult extends Record<MemoryTable, number> {
  total: number;
  rows: number;
  skipped: number;
  /** Whether the vector index was dropped for the load and built again after it. */
  reindexed: boolean;
}

/**
 * Imports the source's lines from `fromLine` on. A bad line stops it (ValidationError naming the
 * line; every line before it is written) unless `skipInvalid`; any failure leaves the lines before
 * the last progress's `nextLine` written, so the import can resume from there.
 */
export async function importMemory(
  deps: ImportDeps,
  ctx: AgentContext,
  source: ImportSource,
  settings: ImportSettings,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const fromLine = Math.max(1, options.fromLine ?? 1);
  const { dimension } = deps.embedder;
  const progress: ImportProgress = { stage: 'loading', total: source.total, nextLine: fromLine, rows: 0, skipped: 0 };
  const written: Record<MemoryTable, number> = { entities: 0, resources: 0, moments: 0 };
  const reindexed = await shouldRebuild(deps.prisma, dimension, source.total - fromLine + 1, settings.reindexThreshold);
  if (reindexed) {
    await dropVectorIndex(deps.prisma, dimension);
    await dropGinIndexes(deps.prisma);
  }
  let batch: Prepared[] = [];
  let inBatch = new Set<string>();
  let consumed = fromLine - 1;
  // The write in flight: the next batch is read, embedded and encoded meanwhile (this process's CPU while the database works).
  let writing = null as { ids: Set<string>; done: Promise<void> } | null;

  const write = async (items: Prepared[], sends: (() => Promise<void>)[], nextLine: number) => {
    if (items.length) {
      for (const send of sends) await send();
      const counts = countByTable(items);
      for (const table of Object.keys(counts) as MemoryTable[]) written[table] += counts[table];
      progress.rows += items.length;
      await deps.stats?.wrote({ ...counts, kv_store: items.length, embeddings: items.length });
    }
    progress.nextLine = nextLine;
    await options.onProgress?.({ ...progress });
  };

  /** Plans the batch's vectors, then starts its write once the previous one is done (writes stay in line order). */
  const flush = async () => {
    const items = batch;
    const ids = inBatch;
    const nextLine = consumed + 1;
    batch = [];
    inBatch = new Set();
    // Planning reads the stored rows: those the write in flight changes are read after it.
    const previous = writing;
    if (previous && [...ids].some((id) => previous.ids.has(id))) await previous.done;
    const sends = items.length ? writesOf(deps, ctx.tenantId, items, await planVectors(deps, ctx.tenantId, items)) : [];
    await writing?.done;
    const done = write(items, sends, nextLine);
    done.catch(() => {}); // awaited by the next flush or by drain; this only keeps it from counting as unhandled meanwhile
    writing = { ids, done };
  };
  const drain = async () => {
    await flush();
    await writing?.done;
  };

  try {
    for await (const { line, text } of source.lines(fromLine)) {
      let item: Prepared | null;
      try {
        item = readItem(ctx, text, source.where(line), options.source ?? {});
      } catch (error) {
        if (!options.skipInvalid || !(error instanceof ValidationError)) {
          await drain();
          throw error;
        }
        options.onSkipped?.(error);
        progress.skipped += 1;
        item = null;
      }
      if (item) {
        const id = rowId(item.kind, item.owner, item.key);
        // One statement cannot update a row twice: a key seen again starts a new batch, so the later line wins.
        if (inBatch.has(id)) await flush();
        batch.push(item);
        inBatch.add(id);
      }
      consumed = line;
      if (batch.length >= settings.batchSize) await flush();
    }
    await drain();
  } finally {
    await writing?.done.catch(() => {});
    // Also after a failure, and after an earlier import that was stopped while the index was dropped.
    if (reindexed) await options.onProgress?.({ ...progress, stage: 'indexing' });
    await ensureVectorIndex(deps.prisma, deps.backend, dimension);
    await ensureGinIndexes(deps.prisma);
  }
  // The rows just written wait in the trigram and tag indexes' pending lists, which every FUZZY call would scan.
  await flushGinPendingLists(deps.sql);
  return { ...written, total: source.total, rows: progress.rows, skipped: progress.skipped, reindexed };
}

function readItem(ctx: AgentContext, text: string, where: string, source: MemorySource): Prepared | null {
  const parsed = parseLine(text, where);
  if (!parsed) return null;
  try {
    return prepareItem(ctx, parsed, [], source);
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw lineError(where, error.message, error instanceof ValidationError ? (error.issues[0]?.path ?? []) : []);
  }
}

/** The writes of a batch with its planned vectors, ready to send in order: one statement per kind and set of given fields. */
function writesOf(deps: ImportDeps, tenantId: string, items: Prepared[], planned: Map<string, PlannedVector>): (() => Promise<void>)[] {
  return [...groupByFields(items).values()].map(({ kind, fields, items: grouped }) =>
    batchWrite(deps.sql, deps.embedder, tenantId, kind, fields, grouped, planned),
  );
}

function countByTable(items: Prepared[]): Record<MemoryTable, number> {
  const counts: Record<MemoryTable, number> = { entities: 0, resources: 0, moments: 0 };
  for (const item of items) counts[TABLE_OF[item.kind]] += 1;
  return counts;
}
