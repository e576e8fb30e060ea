/**
 * Writes to REM memory: upserts of entities, resources and moments by natural-language key, an
 * all-or-nothing batch ingest, deletes, and keeping their embeddings current. kv_store is not
 * written here: database triggers maintain it whichever path writes the rows.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy, visibleTo } from '../auth/scope.js';
import { Prisma, type Entity, type Moment, type PrismaClient, type Resource } from '../db/generated/client.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { parseInput } from '../validation.js';
import type { EmbeddingProvider } from './embeddings/provider.js';
import { vectorLiteral } from './embeddings/provider.js';
import { normalizeKey } from './keys.js';

export interface MemoryDeps {
  prisma: PrismaClient;
  embedder: EmbeddingProvider;
}

export type MemoryKind = 'entity' | 'resource' | 'moment';
export type MemoryTable = 'entities' | 'resources' | 'moments';
export const TABLE_OF: Record<MemoryKind, MemoryTable> = { entity: 'entities', resource: 'resources', moment: 'moments' };

/** A graph edge as stored in graph_edges (the REM design's JSON shape). */
export interface StoredEdge {
  dst: string;
  rel_type: string;
  weight: number;
  properties?: Record<string, unknown>;
}

const MAX_CONTENT = 1_000_000;

const keySchema = z
  .string()
  .max(300, 'must be at most 300 characters')
  .transform(normalizeKey)
  .refine((k) => k !== '', 'must contain letters or digits');
const shortText = z.string().trim().max(500, 'must be at most 500 characters');
const longText = z.string().max(MAX_CONTENT, `must be at most ${MAX_CONTENT} characters`);
const jsonObject = z
  .record(z.string(), z.unknown())
  .refine((v) => JSON.stringify(v).length <= 65_536, 'must be at most 64 KiB of JSON');
const tags = z.array(z.string().trim().min(1, 'must not be empty').max(100)).max(50, 'at most 50 tags');
const edge = z.object({
  dst: keySchema,
  relType: z.string().trim().min(1, 'must not be empty').max(100),
  weight: z.number().min(0).max(1).nullish(),
  properties: jsonObject.nullish(),
});
const edges = z.array(edge).max(500, 'at most 500 edges');

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

export type MemoryRow = Entity | Resource | Moment;
export type IngestResult = { entities: Entity[]; resources: Resource[]; moments: Moment[] };

interface Prepared {
  kind: MemoryKind;
  owner: string | null;
  key: string;
  /** Column values given in the input (undefined = keep on update). */
  data: Record<string, unknown>;
  path: (string | number)[];
}

const SCHEMAS = { entity: entityInput, resource: resourceInput, moment: momentInput } as const;

function prepare(ctx: AgentContext, kind: MemoryKind, input: unknown, path: (string | number)[]): Prepared {
  const parsed = parseInput(SCHEMAS[kind], input, path) as Record<string, unknown> & { key: string; shared?: boolean | null };
  const shared = parsed.shared === true || ctx.userId === null;
  if (shared && !ctx.isAdmin) {
    throw new ForbiddenError(`${[...path, 'shared'].join('.')}: only admins write shared memory`);
  }
  const { key, shared: _shared, graphEdges, ...rest } = parsed;
  const data: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    data[name] = value !== null ? value : name === 'tags' ? [] : name === 'metadata' ? {} : name === 'extractedData' ? Prisma.DbNull : null;
  }
  if (graphEdges !== undefined) data.graphEdges = toStoredEdges((graphEdges ?? []) as z.output<typeof edges>);
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

/** The text that is embedded for a row: name, summary and content. */
export function embeddingText(row: { name?: string | null; summary?: string | null; content?: string | null }): string {
  return [row.name, row.summary, row.content].filter((s): s is string => !!s && s.trim() !== '').join('\n');
}

function hashText(model: string, text: string): string {
  return createHash('sha256').update(model).update('\0').update(text).digest('hex');
}

type Tx = Prisma.TransactionClient;

function delegate(tx: Tx | PrismaClient, kind: MemoryKind) {
  // The three delegates share the operations used here; their argument types differ only by model.
  return (kind === 'entity' ? tx.entity : kind === 'resource' ? tx.resource : tx.moment) as unknown as {
    findFirst(args: unknown): Promise<MemoryRow | null>;
    findMany(args: unknown): Promise<MemoryRow[]>;
    create(args: unknown): Promise<MemoryRow>;
    update(args: unknown): Promise<MemoryRow>;
    delete(args: unknown): Promise<MemoryRow>;
  };
}

async function writeAll(deps: MemoryDeps, ctx: AgentContext, items: Prepared[]): Promise<MemoryRow[]> {
  const seen = new Map<string, (string | number)[]>();
  for (const item of items) {
    const id = `${item.kind}:${item.owner ?? ''}:${item.key}`;
    const first = seen.get(id);
    if (first) {
      throw new ValidationError(`${[...item.path, 'key'].join('.')}: the key "${item.key}" is also given at ${first.join('.')}`, [
        { path: [...item.path, 'key'], message: `duplicate key "${item.key}" in this batch` },
      ]);
    }
    seen.set(id, item.path);
  }
  return deps.prisma.$transaction(
    async (tx) => {
      const rows: MemoryRow[] = [];
      for (const item of items) {
        const where = { tenantId: ctx.tenantId, userId: item.owner, key: item.key };
        const existing = await delegate(tx, item.kind).findFirst({ where, select: { id: true } });
        const row = existing
          ? await delegate(tx, item.kind).update({ where: { id: (existing as { id: string }).id }, data: item.data })
          : await delegate(tx, item.kind).create({ data: { ...item.data, ...where } });
        rows.push(row);
      }
      await syncEmbeddings(tx, deps.embedder, items.map((item, i) => ({ table: TABLE_OF[item.kind], row: rows[i]! })));
      return rows;
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
}

/**
 * Makes the current model's embedding of each row match its text: computes vectors only for rows
 * whose text changed (by content hash), deletes the vector of rows that have no text left.
 */
export async function syncEmbeddings(
  db: Tx | PrismaClient,
  embedder: EmbeddingProvider,
  rows: { table: MemoryTable; row: MemoryRow }[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const existing = await db.embedding.findMany({
    where: { model: embedder.model, field: 'content', entityId: { in: rows.map((r) => r.row.id) } },
    select: { entityType: true, entityId: true, contentHash: true, dimension: true },
  });
  const current = new Map(existing.map((e) => [`${e.entityType}:${e.entityId}`, e]));
  const stale: { table: MemoryTable; row: MemoryRow; text: string; hash: string }[] = [];
  const empty: { table: MemoryTable; id: string }[] = [];
  for (const { table, row } of rows) {
    const text = embeddingText(row);
    if (text === '') {
      if (current.has(`${table}:${row.id}`)) empty.push({ table, id: row.id });
      continue;
    }
    const hash = hashText(embedder.model, text);
    const known = current.get(`${table}:${row.id}`);
    if (known?.contentHash === hash && known.dimension === embedder.dimension) continue;
    stale.push({ table, row, text, hash });
  }
  for (const { table, id } of empty) {
    await db.embedding.deleteMany({ where: { entityType: table, entityId: id, model: embedder.model } });
  }
  if (stale.length === 0) return 0;
  const vectors = await embedder.embed(stale.map((s) => s.text));
  const CHUNK = 100;
  for (let i = 0; i < stale.length; i += CHUNK) {
    const chunk = stale.slice(i, i + CHUNK);
    const params: unknown[] = [];
    const values = chunk.map((s, j) => {
      params.push(s.table, s.row.id, embedder.model, embedder.dimension, s.hash, vectorLiteral(vectors[i + j]!), s.row.tenantId, s.row.userId);
      const b = j * 8;
      return `($${b + 1}, $${b + 2}::uuid, 'content', $${b + 3}, $${b + 4}::int, $${b + 5}, $${b + 6}::vector, $${b + 7}, $${b + 8})`;
    });
    await db.$executeRawUnsafe(
      `INSERT INTO "embeddings" ("entity_type", "entity_id", "field", "model", "dimension", "content_hash", "embedding", "tenant_id", "user_id")
       VALUES ${values.join(', ')}
       ON CONFLICT ("entity_type", "entity_id", "field", "model") DO UPDATE SET
         "dimension" = EXCLUDED."dimension", "content_hash" = EXCLUDED."content_hash", "embedding" = EXCLUDED."embedding",
         "tenant_id" = EXCLUDED."tenant_id", "user_id" = EXCLUDED."user_id", "created_at" = now()`,
      ...params,
    );
  }
  return stale.length;
}

async function upsertOne<R extends MemoryRow>(deps: MemoryDeps, ctx: AgentContext, kind: MemoryKind, input: unknown): Promise<R> {
  const item = prepare(ctx, kind, input, ['input']);
  try {
    return (await writeAll(deps, ctx, [item]))[0] as R;
  } catch (error) {
    // Two writers created the same key at once: the loser updates the winner's row.
    if ((error as { code?: string }).code === 'P2002') return (await writeAll(deps, ctx, [item]))[0] as R;
    throw error;
  }
}

export const upsertEntity = (deps: MemoryDeps, ctx: AgentContext, input: EntityInput) => upsertOne<Entity>(deps, ctx, 'entity', input);
export const upsertResource = (deps: MemoryDeps, ctx: AgentContext, input: ResourceInput) =>
  upsertOne<Resource>(deps, ctx, 'resource', input);
export const upsertMoment = (deps: MemoryDeps, ctx: AgentContext, input: MomentInput) => upsertOne<Moment>(deps, ctx, 'moment', input);

export const MAX_INGEST_ITEMS = 1000;

/** Upserts every item in one transaction: either all are written (with their embeddings) or none. */
export async function ingest(deps: MemoryDeps, ctx: AgentContext, items: MemoryItemInput[]): Promise<IngestResult> {
  if (items.length > MAX_INGEST_ITEMS) {
    throw new ValidationError(`items: at most ${MAX_INGEST_ITEMS} per call`, [{ path: ['items'], message: `at most ${MAX_INGEST_ITEMS} per call` }]);
  }
  const prepared = items.map((item, i) => {
    const given = (['entity', 'resource', 'moment'] as const).filter((k) => item[k] != null);
    if (given.length !== 1) {
      const message = 'give exactly one of entity, resource or moment';
      throw new ValidationError(`items.${i}: ${message}`, [{ path: ['items', i], message }]);
    }
    const kind = given[0]!;
    return prepare(ctx, kind, item[kind], ['items', i, kind]);
  });
  const rows = await writeAll(deps, ctx, prepared);
  const result: IngestResult = { entities: [], resources: [], moments: [] };
  prepared.forEach((item, i) => (result[TABLE_OF[item.kind]] as MemoryRow[]).push(rows[i]!));
  return result;
}

/** Deletes the caller's row with this key (or the shared one, for admins). kv_store and embeddings follow by trigger. */
export async function deleteMemory(deps: Pick<MemoryDeps, 'prisma'>, ctx: AgentContext, kind: MemoryKind, rawKey: string, shared = false) {
  const key = parseInput(keySchema, rawKey, ['key']);
  if (shared && !ctx.isAdmin) throw new ForbiddenError('shared: only admins delete shared memory');
  const where = { key, ...(shared ? { tenantId: ctx.tenantId, userId: null } : ownedBy({ ...ctx, isAdmin: false })) };
  const row = await delegate(deps.prisma, kind).findFirst({ where });
  if (!row) throw new NotFoundError(kind === 'entity' ? 'Entity' : kind === 'resource' ? 'Resource' : 'Moment', key);
  return delegate(deps.prisma, kind).delete({ where: { id: row.id } });
}

const filterInput = z.object({
  tags: z.array(z.string().max(100)).max(50).nullish(),
  type: z.string().max(500).nullish(),
  text: z.string().max(500).nullish(),
});
export type MemoryFilter = z.input<typeof filterInput>;

/** Prisma `where` for listing rows the caller can see, by tags (any of), type and text. */
export function memoryWhere(ctx: AgentContext, kind: MemoryKind, filter: MemoryFilter | null | undefined): Record<string, unknown> {
  const f = parseInput(filterInput, filter ?? {}, ['filter']);
  const typeColumn = kind === 'entity' ? 'entityType' : kind === 'resource' ? 'category' : 'momentType';
  const text = f.text?.trim();
  const contains = (field: string) => ({ [field]: { contains: text, mode: 'insensitive' } });
  return {
    AND: [
      visibleTo(ctx),
      ...(f.tags?.length ? [{ tags: { hasSome: f.tags } }] : []),
      ...(f.type ? [{ [typeColumn]: f.type }] : []),
      ...(text ? [{ OR: [{ key: { contains: normalizeKey(text) || text } }, contains('name'), contains('summary'), contains('content')] }] : []),
    ],
  };
}

export interface ReembedResult {
  model: string;
  dimension: number;
  embedded: number;
}

/**
 * Computes the current model's vectors for rows that have none (after a model change, or rows
 * written by SQL outside the API). Admins re-embed the whole tenant; other callers their own rows.
 */
export async function reembed(deps: MemoryDeps, ctx: AgentContext, batchSize = 256): Promise<ReembedResult> {
  let embedded = 0;
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
      embedded += await syncEmbeddings(deps.prisma, deps.embedder, rows.map((row) => ({ table, row })));
      if (ids.length < batchSize) break;
    }
  }
  return { model: deps.embedder.model, dimension: deps.embedder.dimension, embedded };
}
