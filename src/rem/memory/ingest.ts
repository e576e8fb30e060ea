/** Bulk writes to REM memory: many entities, resources and moments at once, all or nothing. */
import type { AgentContext } from '../../auth/agent-context.js';
import type { Entity, Moment, Resource } from '../../db/generated/client.js';
import { ValidationError } from '../../errors.js';
import { prepare, type MemoryItemInput, type MemorySource, type Prepared } from './inputs.js';
import { TABLE_OF, type MemoryDeps, type MemoryRow } from './kinds.js';
import { writeAll, type WriteHooks } from './upsert.js';

const MAX_INGEST_ITEMS = 1000;

export type IngestResult = { entities: Entity[]; resources: Resource[]; moments: Moment[] };

export interface IngestOptions extends WriteHooks {
  /** Most items of one call (MAX_INGEST_ITEMS unless the caller bounds the batch itself, as file ingestion does). */
  maxItems?: number;
  /** Most graph edges of one item (MAX_EDGES unless the caller bounds them itself). */
  maxEdges?: number;
  /** Who wrote the rows (a turn or a job), recorded on each. */
  source?: MemorySource;
}

/** Validates one item of a batch (exactly one of entity, resource or moment) and prepares it for writing. */
export function prepareItem(ctx: AgentContext, item: MemoryItemInput, path: (string | number)[], source: MemorySource, maxEdges?: number): Prepared {
  const given = (['entity', 'resource', 'moment'] as const).filter((k) => item[k] != null);
  if (given.length !== 1) {
    const message = 'give exactly one of entity, resource or moment';
    throw new ValidationError(`${path.length ? `${path.join('.')}: ` : ''}${message}`, [{ path, message }]);
  }
  const kind = given[0]!;
  return prepare(ctx, kind, item[kind], [...path, kind], source, maxEdges);
}

/** Upserts every item in one transaction: either all are written (with their embeddings) or none. */
export async function ingest(deps: MemoryDeps, ctx: AgentContext, items: MemoryItemInput[], options: IngestOptions = {}): Promise<IngestResult> {
  const max = options.maxItems ?? MAX_INGEST_ITEMS;
  if (items.length > max) {
    throw new ValidationError(`items: at most ${max} per call`, [{ path: ['items'], message: `at most ${max} per call` }]);
  }
  const prepared = items.map((item, i) => prepareItem(ctx, item, ['items', i], options.source ?? {}, options.maxEdges));
  const rows = await writeAll(deps, ctx, prepared, options);
  const result: IngestResult = { entities: [], resources: [], moments: [] };
  prepared.forEach((item, i) => (result[TABLE_OF[item.kind]] as MemoryRow[]).push(rows[i]!));
  return result;
}
