/**
 * Writes to REM memory: entities, resources and moments upserted by natural-language key, with
 * their embeddings kept current. kv_store is not written here: database triggers maintain it
 * whichever path writes the rows.
 */
import type { AgentContext } from '../../auth/agent-context.js';
import type { Entity, Moment, Resource } from '../../db/generated/client.js';
import { ValidationError } from '../../errors.js';
import { prepare, type EntityInput, type MemorySource, type MomentInput, type Prepared, type ResourceInput } from './inputs.js';
import { TABLE_OF, rowId, type MemoryDeps, type MemoryKind, type MemoryRow, type Tx } from './kinds.js';
import { upsertRows } from './upsert-rows.js';
import { planVectors, storeVectors } from './vectors.js';

export interface WriteHooks {
  /** More writes in the same transaction, after the rows (e.g. removing what they replace); a failure there writes nothing. */
  afterWrite?: (tx: Tx) => Promise<unknown>;
  /** Told when the vectors are computed and the transaction is about to start. */
  beforeWrite?: () => void;
}

/**
 * Writes a batch in one short transaction: per kind and set of given fields, one INSERT ... ON
 * CONFLICT DO UPDATE; then the rows' vectors in one statement. Vectors are computed before the
 * transaction opens, so a slow embedding endpoint never holds a connection (or, on PGlite, the
 * whole database); a provider failure writes nothing.
 */
export async function writeAll(deps: MemoryDeps, ctx: AgentContext, items: Prepared[], hooks: WriteHooks = {}): Promise<MemoryRow[]> {
  const seen = new Map<string, (string | number)[]>();
  for (const item of items) {
    const id = rowId(item.kind, item.owner, item.key);
    const first = seen.get(id);
    if (first) {
      throw new ValidationError(`${[...item.path, 'key'].join('.')}: the key "${item.key}" is also given at ${first.join('.')}`, [
        { path: [...item.path, 'key'], message: `duplicate key "${item.key}" in this batch` },
      ]);
    }
    seen.set(id, item.path);
  }
  const planned = await planVectors(deps, ctx.tenantId, items);
  hooks.beforeWrite?.();
  const groups = groupByFields(items);
  const rows = await deps.prisma.$transaction(
    async (tx) => {
      const byId = new Map<string, MemoryRow>();
      for (const { kind, fields, items: grouped } of groups.values()) {
        for (const row of await upsertRows(tx, ctx.tenantId, kind, fields, grouped)) byId.set(rowId(kind, row.userId, row.key), row);
      }
      const rows = items.map((item) => byId.get(rowId(item.kind, item.owner, item.key))!);
      await storeVectors(
        tx,
        deps.embedder,
        items.map((item, i) => ({ table: TABLE_OF[item.kind], row: rows[i]!, plan: planned.get(rowId(item.kind, item.owner, item.key)) })),
      );
      await hooks.afterWrite?.(tx);
      return rows;
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
  // Every write counts, one row at a time included: LOOKUP and TRAVERSE keep their plans per
  // connection until the tables are analyzed, so a table must not grow for long unanalyzed.
  const written = { entities: 0, resources: 0, moments: 0 };
  for (const item of items) written[TABLE_OF[item.kind]] += 1;
  await deps.stats?.wrote({ ...written, kv_store: items.length, embeddings: items.length });
  return rows;
}

async function upsertOne<R extends MemoryRow>(deps: MemoryDeps, ctx: AgentContext, kind: MemoryKind, input: unknown, source: MemorySource): Promise<R> {
  // ON CONFLICT makes concurrent writers of one key update the same row rather than fail.
  return (await writeAll(deps, ctx, [prepare(ctx, kind, input, ['input'], source)]))[0] as R;
}

export const upsertEntity = (deps: MemoryDeps, ctx: AgentContext, input: EntityInput, source: MemorySource = {}) =>
  upsertOne<Entity>(deps, ctx, 'entity', input, source);
export const upsertResource = (deps: MemoryDeps, ctx: AgentContext, input: ResourceInput, source: MemorySource = {}) =>
  upsertOne<Resource>(deps, ctx, 'resource', input, source);
export const upsertMoment = (deps: MemoryDeps, ctx: AgentContext, input: MomentInput, source: MemorySource = {}) =>
  upsertOne<Moment>(deps, ctx, 'moment', input, source);

/** Items grouped by kind and set of given fields: each group is written by one statement. */
export function groupByFields(items: Prepared[]): Map<string, { kind: MemoryKind; fields: string[]; items: Prepared[] }> {
  const groups = new Map<string, { kind: MemoryKind; fields: string[]; items: Prepared[] }>();
  for (const item of items) {
    const fields = Object.keys(item.data).sort();
    const group = `${item.kind}:${fields.join(',')}`;
    if (!groups.has(group)) groups.set(group, { kind: item.kind, fields, items: [] });
    groups.get(group)!.items.push(item);
  }
  return groups;
}
