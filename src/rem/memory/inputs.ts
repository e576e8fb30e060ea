/**
 * What callers may write to REM memory: the validated shapes of entities, resources and moments,
 * and their preparation into column values for one owner.
 */
import { z } from 'zod';
import type { AgentContext } from '../../auth/agent-context.js';
import { ForbiddenError, ValidationError } from '../../errors.js';
import { parseInput } from '../../validation.js';
import { normalizeKey } from '../keys.js';
import type { MemoryKind } from './kinds.js';

/** A graph edge as stored in graph_edges (the REM design's JSON shape). */
export interface StoredEdge {
  dst: string;
  rel_type: string;
  weight: number;
  properties?: Record<string, unknown>;
}

const MAX_CONTENT = 1_000_000;

export const keySchema = z
  .string()
  .max(300, 'must be at most 300 characters')
  .transform(normalizeKey)
  .refine((k) => k !== '', 'must contain letters or digits');
const shortText = z.string().trim().max(500, 'must be at most 500 characters');
const longText = z.string().max(MAX_CONTENT, `must be at most ${MAX_CONTENT} characters`);
const jsonObject = z.record(z.string(), z.unknown()).refine((v) => JSON.stringify(v).length <= 65_536, 'must be at most 64 KiB of JSON');
const tags = z.array(z.string().trim().min(1, 'must not be empty').max(100)).max(50, 'at most 50 tags');
const edge = z.object({
  dst: keySchema,
  relType: z.string().trim().min(1, 'must not be empty').max(100),
  weight: z.number().min(0).max(1).nullish(),
  properties: jsonObject.nullish(),
});
// Bounded per call in prepare(): a file's resource links to every one of its chunks.
const edges = z.array(edge);

/** Most graph edges of one row, unless the caller bounds them itself (as file ingestion does). */
const MAX_EDGES = 500;

const common = {
  key: keySchema,
  name: shortText.nullish(),
  summary: z.string().max(10_000).nullish(),
  content: longText.nullish(),
  tags: tags.nullish(),
  graphEdges: edges.nullish(),
  shared: z.boolean().nullish(),
};

const entityInput = z.object({
  ...common,
  entityType: shortText.nullish(),
  uri: z.string().max(2000).nullish(),
  extractedData: jsonObject.nullish(),
  metadata: jsonObject.nullish(),
});
const resourceInput = z.object({
  ...common,
  uri: z.string().max(2000).nullish(),
  category: shortText.nullish(),
  metadata: jsonObject.nullish(),
});
const momentInput = z
  .object({
    ...common,
    momentType: shortText.nullish(),
    startsAt: z.date().nullish(),
    endsAt: z.date().nullish(),
    sessionId: z.uuid('must be a session id').nullish(),
    metadata: jsonObject.nullish(),
  })
  .refine((m) => !m.startsAt || !m.endsAt || m.endsAt >= m.startsAt, { message: 'must not be before startsAt', path: ['endsAt'] });

export type EntityInput = z.input<typeof entityInput>;
export type ResourceInput = z.input<typeof resourceInput>;
export type MomentInput = z.input<typeof momentInput>;

/** One item of a batch ingest: exactly one of the three. */
export interface MemoryItemInput {
  entity?: EntityInput | null;
  resource?: ResourceInput | null;
  moment?: MomentInput | null;
}

export interface Prepared {
  kind: MemoryKind;
  owner: string | null;
  key: string;
  /** Column values given in the input, by model field (undefined = keep on update; null = clear). */
  data: Record<string, unknown>;
  path: (string | number)[];
}

const SCHEMAS = { entity: entityInput, resource: resourceInput, moment: momentInput } as const;

/**
 * Who writes: an agent's turn (save_memory) or a background job (dreaming); nothing for a person.
 * Every write records it on the row, so a row names its latest writer.
 */
export interface MemorySource {
  turnId?: string | null;
  jobId?: string | null;
}

/** What an anonymous caller is told when it writes memory. */
const ANONYMOUS_WRITE = 'Anonymous callers cannot write memory: identify yourself with a bearer token (or X-User-Id where identity headers are accepted)';

/** Validates one item and decides its owner: shared rows (no user) are for admins only. */
export function prepare(ctx: AgentContext, kind: MemoryKind, input: unknown, path: (string | number)[], source: MemorySource, maxEdges = MAX_EDGES): Prepared {
  const parsed = parseInput(SCHEMAS[kind], input, path) as Record<string, unknown> & { key: string; shared?: boolean | null };
  if (Array.isArray(parsed.graphEdges) && parsed.graphEdges.length > maxEdges) {
    const message = `at most ${maxEdges} edges`;
    throw new ValidationError(`${[...path, 'graphEdges'].join('.')}: ${message}`, [{ path: [...path, 'graphEdges'], message }]);
  }
  const shared = parsed.shared === true || ctx.userId === null;
  if (shared && !ctx.isAdmin) {
    // An anonymous caller's rows would be shared ones: what it lacks is an identity, not a role.
    if (ctx.userId === null) throw new ForbiddenError(ANONYMOUS_WRITE);
    throw new ForbiddenError(`${[...path, 'shared'].join('.')}: only admins write shared memory`);
  }
  const { key, shared: _shared, graphEdges, ...rest } = parsed;
  const data: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    data[name] = value !== null ? value : name === 'tags' ? [] : name === 'metadata' ? {} : null;
  }
  if (graphEdges !== undefined) data.graphEdges = toStoredEdges((graphEdges ?? []) as z.output<typeof edges>);
  data.sourceTurnId = source.turnId ?? null;
  data.sourceJobId = source.jobId ?? null;
  return { kind, owner: shared ? null : ctx.userId, key, data, path };
}

function toStoredEdges(input: z.output<typeof edges>): StoredEdge[] {
  return input.map((e) => ({
    dst: e.dst,
    rel_type: e.relType,
    weight: e.weight ?? 1,
    ...(e.properties ? { properties: e.properties } : {}),
  }));
}
