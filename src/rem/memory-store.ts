/**
 * Writes to REM memory: upserts of entities, resources and moments by natural-language key, an
 * all-or-nothing batch ingest, deletes, and keeping their embeddings current. kv_store is not
 * written here: database triggers maintain it whichever path writes the rows.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy, visibleTo } from '../auth/scope.js';
import type { Entity, Moment, Prisma, PrismaClient, Resource } from '../db/generated/client.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { parseInput } from '../validation.js';
import type { EmbeddingProvider } from './embeddings/provider.js';
import { vectorLiteral } from './embeddings/provider.js';
import { normalizeKey } from './keys.js';
import type { TableStats } from './table-stats.js';

export interface MemoryDeps {
  prisma: PrismaClient;
  embedder: EmbeddingProvider;
  /** Hears how many rows each write touched, to refresh planner statistics after bulk writes. */
  stats?: TableStats;
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

function prepare(ctx: AgentContext, kind: MemoryKind, input: unknown, path: (string | number)[], source: MemorySource): Prepared {
  const parsed = parseInput(SCHEMAS[kind], input, path) as Record<string, unknown> & { key: string; shared?: boolean | null };
  const shared = parsed.shared === true || ctx.userId === null;
  if (shared && !ctx.isAdmin) {
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

/** The text that is embedded for a row: name, summary and content. */
export function embeddingText(row: { name?: string | null; summary?: string | null; content?: string | null }): string {
  return [row.name, row.summary, row.content].filter((s): s is string => !!s && s.trim() !== '').join('\n');
}

function hashText(model: string, text: string): string {
  return createHash('sha256').update(model).update('\0').update(text).digest('hex');
}

export type Tx = Prisma.TransactionClient;

function delegate(tx: Tx | PrismaClient, kind: MemoryKind) {
  // The three delegates share the operations used here; their argument types differ only by model.
  return (kind === 'entity' ? tx.entity : kind === 'resource' ? tx.resource : tx.moment) as unknown as {
    findFirst(args: unknown): Promise<MemoryRow | null>;
    findMany(args: unknown): Promise<MemoryRow[]>;
    delete(args: unknown): Promise<MemoryRow>;
  };
}

type SqlType = 'text' | 'jsonb' | 'tags' | 'timestamptz' | 'uuid';

/** Writable model fields: their column and how a JSON value becomes that column's type. */
const FIELDS: Record<string, { column: string; type: SqlType }> = {
  name: { column: 'name', type: 'text' },
  summary: { column: 'summary', type: 'text' },
  content: { column: 'content', type: 'text' },
  tags: { column: 'tags', type: 'tags' },
  graphEdges: { column: 'graph_edges', type: 'jsonb' },
  metadata: { column: 'metadata', type: 'jsonb' },
  entityType: { column: 'entity_type', type: 'text' },
  uri: { column: 'uri', type: 'text' },
  extractedData: { column: 'extracted_data', type: 'jsonb' },
  category: { column: 'category', type: 'text' },
  momentType: { column: 'moment_type', type: 'text' },
  startsAt: { column: 'starts_at', type: 'timestamptz' },
  endsAt: { column: 'ends_at', type: 'timestamptz' },
  sessionId: { column: 'session_id', type: 'uuid' },
  sourceTurnId: { column: 'source_turn_id', type: 'uuid' },
  sourceJobId: { column: 'source_job_id', type: 'uuid' },
};

/** Every model field of each table, so that raw RETURNING rows have the shape Prisma would return. */
const MODEL_FIELDS: Record<MemoryKind, string[]> = {
  entity: ['name', 'entityType', 'uri', 'content', 'summary', 'extractedData', 'tags', 'graphEdges', 'metadata', 'sourceTurnId', 'sourceJobId'],
  resource: ['name', 'uri', 'content', 'summary', 'category', 'tags', 'graphEdges', 'metadata', 'sourceTurnId', 'sourceJobId'],
  moment: ['name', 'summary', 'content', 'momentType', 'startsAt', 'endsAt', 'sessionId', 'tags', 'graphEdges', 'metadata', 'sourceTurnId', 'sourceJobId'],
};

function returning(kind: MemoryKind): string {
  const fields = MODEL_FIELDS[kind].map((f) => `t."${FIELDS[f]!.column}"${FIELDS[f]!.type === 'uuid' ? '::text' : ''} AS "${f}"`);
  return [
    't."id"::text AS "id"',
    't."key"',
    ...fields,
    't."tenant_id" AS "tenantId"',
    't."user_id" AS "userId"',
    't."created_at" AS "createdAt"',
    't."updated_at" AS "updatedAt"',
  ].join(', ');
}

function fromJson(field: string): string {
  const { column, type } = FIELDS[field]!;
  return type === 'tags' ? `ARRAY(SELECT jsonb_array_elements_text(r."${column}"))` : `r."${column}"`;
}

/**
 * Upserts rows of one kind that give the same fields, in one statement: rows arrive as one JSON
 * array, conflicts on the natural key (tenant, owner, key) update only the given fields.
 */
async function upsertRows(tx: Tx, tenantId: string, kind: MemoryKind, fields: string[], items: Prepared[]): Promise<MemoryRow[]> {
  const table = TABLE_OF[kind];
  const recordType = ['"key" text', '"user_id" text', ...fields.map((f) => `"${FIELDS[f]!.column}" ${FIELDS[f]!.type === 'tags' ? 'jsonb' : FIELDS[f]!.type}`)];
  const columns = fields.map((f) => `"${FIELDS[f]!.column}"`);
  const updates = [...columns.map((c) => `${c} = EXCLUDED.${c}`), '"updated_at" = now()'];
  const records = items.map((item) => {
    const record: Record<string, unknown> = { key: item.key, user_id: item.owner };
    for (const f of fields) record[FIELDS[f]!.column] = item.data[f];
    return record;
  });
  return tx.$queryRawUnsafe<MemoryRow[]>(
    `INSERT INTO "${table}" AS t ("key", "tenant_id", "user_id"${columns.map((c) => `, ${c}`).join('')})
     SELECT r."key", $2, r."user_id"${fields.map((f) => `, ${fromJson(f)}`).join('')}
     FROM jsonb_to_recordset($1::jsonb) AS r(${recordType.join(', ')})
     ON CONFLICT ("tenant_id", COALESCE("user_id", ''), "key") DO UPDATE SET ${updates.join(', ')}
     RETURNING ${returning(kind)}`,
    JSON.stringify(records),
    tenantId,
  );
}

const rowId = (kind: MemoryKind, owner: string | null, key: string) => `${kind}:${owner ?? ''}:${key}`;

/** The stored text fields of the rows these items would update (read before the write transaction). */
async function storedTexts(db: Tx | PrismaClient, tenantId: string, items: Prepared[]) {
  const stored = new Map<string, { id: string; name: string | null; summary: string | null; content: string | null }>();
  const needed = items.filter((i) => !('name' in i.data && 'summary' in i.data && 'content' in i.data));
  for (const kind of ['entity', 'resource', 'moment'] as const) {
    const ofKind = needed.filter((i) => i.kind === kind);
    if (ofKind.length === 0) continue;
    const rows = await db.$queryRawUnsafe<{ id: string; owner: string; key: string; name: string | null; summary: string | null; content: string | null }[]>(
      `SELECT t."id"::text AS id, w.owner, t."key", t."name", t."summary", t."content"
       FROM unnest($2::text[], $3::text[]) AS w(owner, key)
       JOIN "${TABLE_OF[kind]}" t ON t."tenant_id" = $1 AND COALESCE(t."user_id", '') = w.owner AND t."key" = w.key`,
      tenantId,
      ofKind.map((i) => i.owner ?? ''),
      ofKind.map((i) => i.key),
    );
    for (const row of rows) stored.set(rowId(kind, row.owner || null, row.key), row);
  }
  return stored;
}

interface PlannedVector {
  text: string;
  hash: string;
  vector?: number[];
}

/**
 * Computes, before any write, the vectors the rows will need: the text each row will have (given
 * fields over stored ones), skipping rows whose stored vector already matches that text.
 */
async function planVectors(deps: MemoryDeps, tenantId: string, items: Prepared[]): Promise<Map<string, PlannedVector>> {
  const { embedder } = deps;
  const stored = await storedTexts(deps.prisma, tenantId, items);
  const storedIds = [...stored.values()].map((s) => s.id);
  const current = storedIds.length
    ? await deps.prisma.embedding.findMany({
        where: { model: embedder.model, field: 'content', entityId: { in: storedIds } },
        select: { entityId: true, contentHash: true, dimension: true },
      })
    : [];
  const hashOf = new Map(current.filter((c) => c.dimension === embedder.dimension).map((c) => [c.entityId, c.contentHash]));
  const planned = new Map<string, PlannedVector>();
  const toEmbed: PlannedVector[] = [];
  for (const item of items) {
    const id = rowId(item.kind, item.owner, item.key);
    const before = stored.get(id);
    const text = embeddingText({ ...before, ...(item.data as { name?: string | null; summary?: string | null; content?: string | null }) });
    if (text === '') continue;
    const plan: PlannedVector = { text, hash: hashText(embedder.model, text) };
    planned.set(id, plan);
    if (!before || hashOf.get(before.id) !== plan.hash) toEmbed.push(plan);
  }
  const vectors = await embedInChunks(embedder, toEmbed.map((p) => p.text));
  toEmbed.forEach((p, i) => (p.vector = vectors[i]));
  return planned;
}

const EMBED_CHUNK = 256;

/** Embeds in chunks, letting other requests run between chunks (the offline embedder is CPU work). */
export async function embedInChunks(embedder: EmbeddingProvider, texts: string[]): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += EMBED_CHUNK) {
    if (i > 0) await yieldToOthers();
    out.push(...(await embedder.embed(texts.slice(i, i + EMBED_CHUNK))));
  }
  return out;
}

export const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes a batch in one short transaction: per kind and set of given fields, one INSERT ... ON
 * CONFLICT DO UPDATE; then the rows' vectors in one statement. Vectors are computed before the
 * transaction opens, so a slow embedding endpoint never holds a connection (or, on PGlite, the
 * whole database); a provider failure writes nothing.
 */
async function writeAll(deps: MemoryDeps, ctx: AgentContext, items: Prepared[], hooks: Pick<IngestOptions, 'beforeWrite' | 'afterWrite'> = {}): Promise<MemoryRow[]> {
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
  const groups = new Map<string, { kind: MemoryKind; fields: string[]; items: Prepared[] }>();
  for (const item of items) {
    const fields = Object.keys(item.data).sort();
    const group = `${item.kind}:${fields.join(',')}`;
    if (!groups.has(group)) groups.set(group, { kind: item.kind, fields, items: [] });
    groups.get(group)!.items.push(item);
  }
  const rows = await deps.prisma.$transaction(
    async (tx) => {
      const byId = new Map<string, MemoryRow>();
      for (const { kind, fields, items: grouped } of groups.values()) {
        for (const row of await upsertRows(tx, ctx.tenantId, kind, fields, grouped)) byId.set(rowId(kind, row.userId, row.key), row);
      }
      const rows = items.map((item) => byId.get(rowId(item.kind, item.owner, item.key))!);
      await storeVectors(tx, deps.embedder, items.map((item, i) => ({ table: TABLE_OF[item.kind], row: rows[i]!, plan: planned.get(rowId(item.kind, item.owner, item.key)) })));
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

/**
 * Stores the planned vectors of freshly written rows. A row whose text differs from the planned
 * text (another writer changed a field in between) is embedded again here; a row without text
 * loses its vector.
 */
async function storeVectors(
  tx: Tx,
  embedder: EmbeddingProvider,
  rows: { table: MemoryTable; row: MemoryRow; plan: PlannedVector | undefined }[],
): Promise<void> {
  const fresh: { table: MemoryTable; row: MemoryRow; plan: PlannedVector }[] = [];
  const empty: { table: MemoryTable; id: string }[] = [];
  for (const { table, row, plan } of rows) {
    const text = embeddingText(row);
    if (text === '') {
      empty.push({ table, id: row.id });
    } else if (!plan || plan.text !== text) {
      fresh.push({ table, row, plan: { text, hash: hashText(embedder.model, text) } });
    } else if (plan.vector) {
      fresh.push({ table, row, plan });
    }
  }
  const missing = fresh.filter((f) => !f.plan.vector);
  if (missing.length) (await embedder.embed(missing.map((m) => m.plan.text))).forEach((v, i) => (missing[i]!.plan.vector = v));
  if (empty.length) {
    await tx.$executeRawUnsafe(
      `DELETE FROM "embeddings" e USING unnest($1::text[], $2::uuid[]) AS d(t, id)
       WHERE e."entity_type" = d.t AND e."entity_id" = d.id AND e."model" = $3`,
      empty.map((e) => e.table),
      empty.map((e) => e.id),
      embedder.model,
    );
  }
  if (fresh.length) await insertVectors(tx, embedder, fresh.map((f) => ({ table: f.table, row: f.row, hash: f.plan.hash, vector: f.plan.vector! })));
}

async function insertVectors(
  db: Tx | PrismaClient,
  embedder: EmbeddingProvider,
  vectors: { table: MemoryTable; row: MemoryRow; hash: string; vector: number[] }[],
): Promise<void> {
  await db.$executeRawUnsafe(
    `INSERT INTO "embeddings" ("entity_type", "entity_id", "field", "model", "dimension", "content_hash", "embedding", "tenant_id", "user_id")
     SELECT v.t, v.id, 'content', $1, $2::int, v.h, v.e::vector, v.tenant, v.u
     FROM unnest($3::text[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[]) AS v(t, id, h, e, tenant, u)
     ON CONFLICT ("entity_type", "entity_id", "field", "model") DO UPDATE SET
       "dimension" = EXCLUDED."dimension", "content_hash" = EXCLUDED."content_hash", "embedding" = EXCLUDED."embedding",
       "tenant_id" = EXCLUDED."tenant_id", "user_id" = EXCLUDED."user_id", "created_at" = now()`,
    embedder.model,
    embedder.dimension,
    vectors.map((v) => v.table),
    vectors.map((v) => v.row.id),
    vectors.map((v) => v.hash),
    vectors.map((v) => vectorLiteral(v.vector)),
    vectors.map((v) => v.row.tenantId),
    vectors.map((v) => v.row.userId),
  );
}

/** Gives rows that have text the current model's vector, where theirs is missing or stale (by content hash). */
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
  for (const { table, row } of rows) {
    const text = embeddingText(row);
    if (text === '') continue;
    const hash = hashText(embedder.model, text);
    const known = current.get(`${table}:${row.id}`);
    if (known?.contentHash === hash && known.dimension === embedder.dimension) continue;
    stale.push({ table, row, text, hash });
  }
  if (stale.length === 0) return 0;
  const vectors = await embedInChunks(embedder, stale.map((s) => s.text));
  await insertVectors(db, embedder, stale.map((s, i) => ({ table: s.table, row: s.row, hash: s.hash, vector: vectors[i]! })));
  return stale.length;
}

async function upsertOne<R extends MemoryRow>(deps: MemoryDeps, ctx: AgentContext, kind: MemoryKind, input: unknown, source: MemorySource): Promise<R> {
  // ON CONFLICT makes concurrent writers of one key update the same row rather than fail.
  return (await writeAll(deps, ctx, [prepare(ctx, kind, input, ['input'], source)]))[0] as R;
}

export const upsertEntity = (deps: MemoryDeps, ctx: AgentContext, input: EntityInput, source: MemorySource = {}) => upsertOne<Entity>(deps, ctx, 'entity', input, source);
export const upsertResource = (deps: MemoryDeps, ctx: AgentContext, input: ResourceInput, source: MemorySource = {}) =>
  upsertOne<Resource>(deps, ctx, 'resource', input, source);
export const upsertMoment = (deps: MemoryDeps, ctx: AgentContext, input: MomentInput, source: MemorySource = {}) => upsertOne<Moment>(deps, ctx, 'moment', input, source);

export const MAX_INGEST_ITEMS = 1000;

export interface IngestOptions {
  /** Most items of one call (MAX_INGEST_ITEMS unless the caller bounds the batch itself, as file ingestion does). */
  maxItems?: number;
  /** Who wrote the rows (a turn or a job), recorded on each. */
  source?: MemorySource;
  /** More writes in the same transaction, after the rows (e.g. removing what they replace); a failure there writes nothing. */
  afterWrite?: (tx: Tx) => Promise<unknown>;
  /** Told when the vectors are computed and the transaction is about to start. */
  beforeWrite?: () => void;
}

/** Upserts every item in one transaction: either all are written (with their embeddings) or none. */
export async function ingest(deps: MemoryDeps, ctx: AgentContext, items: MemoryItemInput[], options: IngestOptions = {}): Promise<IngestResult> {
  const max = options.maxItems ?? MAX_INGEST_ITEMS;
  if (items.length > max) {
    throw new ValidationError(`items: at most ${max} per call`, [{ path: ['items'], message: `at most ${max} per call` }]);
  }
  const prepared = items.map((item, i) => {
    const given = (['entity', 'resource', 'moment'] as const).filter((k) => item[k] != null);
    if (given.length !== 1) {
      const message = 'give exactly one of entity, resource or moment';
      throw new ValidationError(`items.${i}: ${message}`, [{ path: ['items', i], message }]);
    }
    const kind = given[0]!;
    return prepare(ctx, kind, item[kind], ['items', i, kind], options.source ?? {});
  });
  const rows = await writeAll(deps, ctx, prepared, options);
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
      const batch = await syncEmbeddings(deps.prisma, deps.embedder, rows.map((row) => ({ table, row })));
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
