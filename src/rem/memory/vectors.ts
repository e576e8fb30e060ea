/**
 * Keeping memory rows' embeddings current: which rows need a new vector (by content hash of the
 * text that is embedded), computing vectors in chunks, and storing or dropping them.
 */
import { createHash } from 'node:crypto';
import type { PrismaClient } from '../../db/generated/client.js';
import type { EmbeddingProvider } from '../embeddings/provider.js';
import { vectorLiteral } from '../embeddings/provider.js';
import type { Prepared } from './inputs.js';
import { TABLE_OF, rowId, type MemoryDeps, type MemoryRow, type MemoryTable, type Tx } from './kinds.js';

/** The text that is embedded for a row: name, summary and content. */
export function embeddingText(row: { name?: string | null; summary?: string | null; content?: string | null }): string {
  return [row.name, row.summary, row.content].filter((s): s is string => !!s && s.trim() !== '').join('\n');
}

function hashText(model: string, text: string): string {
  return createHash('sha256').update(model).update('\0').update(text).digest('hex');
}

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

export interface PlannedVector {
  text: string;
  hash: string;
  vector?: number[];
}

/**
 * Computes, before any write, the vectors the rows will need: the text each row will have (given
 * fields over stored ones), skipping rows whose stored vector already matches that text.
 */
export async function planVectors(deps: MemoryDeps, tenantId: string, items: Prepared[]): Promise<Map<string, PlannedVector>> {
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
  const vectors = await embedInChunks(
    embedder,
    toEmbed.map((p) => p.text),
  );
  toEmbed.forEach((p, i) => (p.vector = vectors[i]));
  return planned;
}

const EMBED_CHUNK = 256;

/** Embeds in chunks, letting other requests run between chunks (the offline embedder is CPU work). */
async function embedInChunks(embedder: EmbeddingProvider, texts: string[]): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += EMBED_CHUNK) {
    if (i > 0) await yieldToOthers();
    out.push(...(await embedder.embed(texts.slice(i, i + EMBED_CHUNK))));
  }
  return out;
}

export const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Stores the planned vectors of freshly written rows. A row whose text differs from the planned
 * text (another writer changed a field in between) is embedded again here; a row without text
 * loses its vector.
 */
export async function storeVectors(
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
  if (fresh.length)
    await insertVectors(
      tx,
      embedder,
      fresh.map((f) => ({ table: f.table, row: f.row, hash: f.plan.hash, vector: f.plan.vector! })),
    );
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
export async function syncEmbeddings(db: Tx | PrismaClient, embedder: EmbeddingProvider, rows: { table: MemoryTable; row: MemoryRow }[]): Promise<number> {
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
  const vectors = await embedInChunks(
    embedder,
    stale.map((s) => s.text),
  );
  await insertVectors(
    db,
    embedder,
    stale.map((s, i) => ({ table: s.table, row: s.row, hash: s.hash, vector: vectors[i]! })),
  );
  return stale.length;
}
