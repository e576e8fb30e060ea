import type { AgentContext } from '../../auth/agent-context.js';
import { delegate, type MemoryDeps, type MemoryTable } from './kinds.js';
import { syncEmbeddings, yieldToOthers } from './vectors.js';

export interface ReembedResult {
  model: string;
  dimension: number;
  embedded: number;
}

/** How far a long-running memory job has got. */
export interface MemoryProgress {
  table: MemoryTable;
  /** Rows looked at so far (all tables). */
  scanned: number;
  /** Rows that got a vector so far (all tables). */
  embedded: number;
}

/**
 * Computes the current model's vectors for rows that have none (after a model change, or rows
 * written by SQL outside the API). Admins re-embed the whole tenant; other callers their own rows.
 * Works in batches, each its own short statement, yielding between them so that other requests
 * (on PGlite, every other query) run in between; `onProgress` hears after each batch and is
 * awaited: throwing there stops the work at that point, with every batch before it stored.
 */
export async function reembed(
  deps: MemoryDeps,
  ctx: AgentContext,
  options: { batchSize?: number; onProgress?: (progress: MemoryProgress) => void | Promise<void> } = {},
): Promise<ReembedResult> {
  const batchSize = options.batchSize ?? 256;
  let embedded = 0;
  let scanned = 0;
  for (const table of ['entities', 'resources', 'moments'] as const) {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const scope = ctx.isAdmin ? '' : ctx.userId === null ? 'AND t."user_id" IS NULL' : 'AND t."user_id" = $5';
      const params: unknown[] = [ctx.tenantId, deps.embedder.model, after, batchSize];
      if (!ctx.isAdmin && ctx.userId !== null) params.push(ctx.userId);
      const ids = await deps.prisma.$queryRawUnsafe<{ id: string }[]>(
        `SELECT t."id"::text AS id FROM "${table}" t
         WHERE t."tenant_id" = $1 AND t."id" > $3::uuid ${scope}
           AND NOT EXISTS (SELECT 1 FROM "embeddings" e WHERE e."entity_type" = '${table}' AND e."entity_id" = t."id"
                           AND e."field" = 'content' AND e."model" = $2)
         ORDER BY t."id" LIMIT $4`,
        ...params,
      );
      if (ids.length === 0) break;
      after = ids.at(-1)!.id;
      const kind = table === 'entities' ? 'entity' : table === 'resources' ? 'resource' : 'moment';
      const rows = await delegate(deps.prisma, kind).findMany({ where: { id: { in: ids.map((r) => r.id) } } });
      const batch = await syncEmbeddings(
        deps.prisma,
        deps.embedder,
        rows.map((row) => ({ table, row })),
      );
      await deps.stats?.wrote({ embeddings: batch });
      embedded += batch;
      scanned += ids.length;
      await options.onProgress?.({ table, scanned, embedded });
      if (ids.length < batchSize) break;
      await yieldToOthers();
    }
  }
  return { model: deps.embedder.model, dimension: deps.embedder.dimension, embedded };
}
