/**
 * What an agent (or a job acting for a user) writes to REM memory: one entity or moment upserted
 * by key, with graph edges merged into the row's existing ones, recording who wrote it. Used by
 * the `save_memory` tool; a plain domain function, so any transport can offer it.
 */
import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy } from '../auth/scope.js';
import type { Entity, Moment } from '../db/generated/client.js';
import { normalizeKey } from './keys.js';
import type { MemorySource, StoredEdge } from './memory/inputs.js';
import type { MemoryDeps } from './memory/kinds.js';
import { upsertEntity, upsertMoment } from './memory/upsert.js';

const edge = z.strictObject({
  dst: z.string().min(1).max(300).describe('Key of the related entity, e.g. "sarah-chen".'),
  rel_type: z.string().min(1).max(100).describe('Snake-case relation, e.g. works_on, reports_to.'),
  weight: z.number().min(0).max(1).optional(),
});

/** One row to save, as the `save_memory` tool takes it (its JSON Schema is derived from this). */
export const saveMemoryInput = z.object({
  kind: z.enum(['entity', 'moment']),
  key: z.string().min(1).max(300).describe('Stable key, e.g. "sarah-chen" or "q3-budget-review-2026-02".'),
  name: z.string().max(500).optional(),
  summary: z.string().max(10000).optional(),
  content: z.string().max(100000).optional(),
  entity_type: z.string().max(500).optional().describe('Entities only.'),
  tags: z.array(z.string().min(1).max(100)).max(50).optional(),
  starts_at: z.string().max(64).optional().describe('Moments only (ISO 8601).'),
  ends_at: z.string().max(64).optional().describe('Moments only (ISO 8601).'),
  edges: z.array(edge).max(100).optional(),
});

export type SaveMemoryInput = z.output<typeof saveMemoryInput>;

export interface SaveMemoryOutcome {
  kind: 'entity' | 'moment';
  row: Entity | Moment;
}

/**
 * Upserts the row as the caller's own (never shared); fields left out keep their stored value.
 * Edges are added to the row's edges, replacing one with the same target and relation, so an
 * agent noting one relation never erases the others. A moment written in a session links to it.
 */
export async function saveMemory(
  deps: MemoryDeps,
  ctx: AgentContext,
  input: SaveMemoryInput,
  source: MemorySource & { sessionId?: string | null },
): Promise<SaveMemoryOutcome> {
  const key = normalizeKey(input.key);
  const common = {
    key: input.key,
    ...(input.name !== undefined && { name: input.name }),
    ...(input.summary !== undefined && { summary: input.summary }),
    ...(input.content !== undefined && { content: input.content }),
    ...(input.tags !== undefined && { tags: input.tags }),
    ...(input.edges?.length && { graphEdges: await mergedEdges(deps, ctx, input.kind, key, input.edges) }),
  };
  const writer = { turnId: source.turnId ?? null, jobId: source.jobId ?? null };
  if (input.kind === 'entity') {
    return {
      kind: 'entity',
      row: await upsertEntity(deps, ctx, { ...common, ...(input.entity_type !== undefined && { entityType: input.entity_type }) }, writer),
    };
  }
  const moment = {
    ...common,
    ...(input.starts_at !== undefined && { startsAt: new Date(input.starts_at) }),
    ...(input.ends_at !== undefined && { endsAt: new Date(input.ends_at) }),
    ...(source.sessionId && { sessionId: source.sessionId }),
  };
  return { kind: 'moment', row: await upsertMoment(deps, ctx, moment, writer) };
}

async function mergedEdges(deps: MemoryDeps, ctx: AgentContext, kind: SaveMemoryInput['kind'], key: string, added: NonNullable<SaveMemoryInput['edges']>) {
  const where = { key, ...ownedBy({ ...ctx, isAdmin: false }) };
  const stored = kind === 'entity' ? await deps.prisma.entity.findFirst({ where }) : await deps.prisma.moment.findFirst({ where });
  return mergeEdges(stored?.graphEdges, added);
}

/**
 * A row's stored edges with `added` ones put in: an added edge replaces a stored one with the same
 * target and relation. The result is in the input form of the memory store.
 */
export function mergeEdges(stored: unknown, added: { dst: string; rel_type: string; weight?: number }[]) {
  const existing = Array.isArray(stored) ? (stored as StoredEdge[]) : [];
  const fresh = added.map((e) => ({ dst: e.dst, relType: e.rel_type, weight: e.weight ?? null }));
  const same = (e: StoredEdge) => fresh.some((f) => normalizeKey(f.dst) === e.dst && f.relType === e.rel_type);
  return [...existing.filter((e) => !same(e)).map((e) => ({ dst: e.dst, relType: e.rel_type, weight: e.weight, properties: e.properties ?? null })), ...fresh];
}
