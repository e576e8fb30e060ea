import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import type { PrismaClient, Prisma } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import { NotFoundError } from '../errors.js';
import { CHUNK_CATEGORY, FILE_CATEGORY } from '../rem/ingest/ingest-file.js';
import type { RemService } from '../rem/service.js';
import type { SearchFilter } from '../rem/search-filter.js';
import { parseInput } from '../validation.js';
import { getCorpus, requireInCorpus } from './corpora.js';
import { documentsWhere, documentTitle, getDocument } from './documents.js';

export interface SearchDeps {
  prisma: PrismaClient;
  /** The passages' chunks and documents: one statement after each search, Prisma's client skipped. */
  sql: SqlClient;
  rem: Pick<RemService, 'search'>;
}

/** The seed's search filters: within a corpus or a document, title contains, content contains, annotation label. */
const scopeInput = z.object({
  corpusId: z.string().uuid().nullish(),
  documentId: z.string().uuid().nullish(),
  titleContains: z.string().trim().min(1).max(500).nullish(),
  contentContains: z.string().trim().min(1).max(500).nullish(),
  label: z.string().trim().min(1).max(100).nullish(),
});
const searchInput = scopeInput.extend({
  query: z.string().trim().min(1, 'must not be empty').max(4000, 'must be at most 4000 characters'),
  k: z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100').nullish(),
});

export type DocumentScope = z.input<typeof scopeInput>;
export type PassageSearch = z.input<typeof searchInput>;

/** A passage of a document found by similarity: a chunk's text, where it is and how close. */
export interface Passage {
  documentId: string;
  documentKey: string;
  title: string;
  corpusId: string | null;
  page: number | null;
  chunkKey: string;
  text: string;
  score: number;
  /** The label the search was narrowed to, if any. */
  annotationLabel: string | null;
}

const DEFAULT_K = 5;

/**
 * The SEARCH filter that keeps the chunks of the documents in scope: `null` when nothing matches,
 * a filter on every file chunk when nothing narrows the documents, on a corpus's chunks when only
 * the corpus does, else on the chunks of the documents that match. The corpus and document must be
 * visible (NOT_FOUND) and the document in the corpus (VALIDATION_FAILED).
 */
export async function scopeFilter(prisma: PrismaClient, ctx: AgentContext, raw: DocumentScope): Promise<SearchFilter | null> {
  const { filter, uncheckedCorpus } = await narrowTo(prisma, ctx, parseInput(scopeInput, raw));
  if (uncheckedCorpus) await getCorpus(prisma, ctx, uncheckedCorpus);
  return filter;
}

/**
 * scopeFilter, except that a corpus that alone scopes the search is not looked up: `uncheckedCorpus`
 * names it, for the caller to check with what it reads anyway (searchPassages does, after the search).
 */
async function narrowTo(
  prisma: PrismaClient,
  ctx: AgentContext,
  scope: z.output<typeof scopeInput>,
): Promise<{ filter: SearchFilter | null; uncheckedCorpus: string | null }> {
  const filter: SearchFilter = { type: CHUNK_CATEGORY, ...(scope.contentContains ? { contentContains: scope.contentContains } : {}) };
  const narrowed = (f: SearchFilter | null) => ({ filter: f, uncheckedCorpus: null });
  if (!scope.corpusId && !scope.documentId && !scope.titleContains && !scope.label) return narrowed(filter);
  // A whole corpus is checked in the search itself, chunk by chunk: listing its documents first
  // would cost as much as the corpus is large, whatever the k asked.
  if (!scope.documentId && !scope.titleContains && !scope.label) return { filter: { ...filter, corpus: scope.corpusId! }, uncheckedCorpus: scope.corpusId! };
  if (scope.corpusId) await getCorpus(prisma, ctx, scope.corpusId);
  const document = scope.documentId ? await getDocument(prisma, ctx, scope.documentId) : null;
  if (scope.corpusId && scope.documentId) await requireInCorpus(prisma, scope.corpusId, [scope.documentId]);
  // One document, visible and (if a corpus is given) in it: its chunks, with no list to read.
  if (document && !scope.titleContains && !scope.label) return narrowed({ ...filter, parents: [parentOf(document)] });
  const where: Prisma.ResourceWhereInput = {
    ...documentsWhere(ctx, scope.corpusId),
    ...(scope.documentId ? { id: scope.documentId } : {}),
    ...(scope.titleContains ? { name: { contains: scope.titleContains, mode: 'insensitive' } } : {}),
    ...(scope.label ? { annotations: { some: { label: scope.label, ...(scope.corpusId ? { corpusId: scope.corpusId } : {}) } } } : {}),
  };
  const documents = await prisma.resource.findMany({ where, select: { key: true, userId: true } });
  return narrowed(documents.length ? { ...filter, parents: documents.map(parentOf) } : null);
}

/** How a chunk names its file (SearchFilter.parents). */
const parentOf = (document: { key: string; userId: string | null }) => `${document.userId ?? ''}:${document.key}`;

/** Passages of the documents in scope most similar to the query (k, default 5), best first. */
export async function searchPassages(deps: SearchDeps, ctx: AgentContext, raw: PassageSearch): Promise<Passage[]> {
  const input = parseInput(searchInput, raw);
  const { filter, uncheckedCorpus } = await narrowTo(deps.prisma, ctx, input);
  if (!filter) return [];
  const hits = await deps.rem.search(ctx, { mode: 'SEARCH', text: input.query, table: 'resources', limit: input.k ?? DEFAULT_K, minSimilarity: 0, filter });
  if (!hits.length && !uncheckedCorpus) return [];
  const chunks = await chunksOf(
    deps.sql,
    ctx,
    hits.map((h) => h.id),
    uncheckedCorpus,
  );
  return hits.flatMap((hit) => {
    const chunk = chunks.get(hit.id);
    if (!chunk) return [];
    return [
      {
        documentId: chunk.document_id,
        documentKey: chunk.document_key,
        title: documentTitle({ name: chunk.document_name, key: chunk.document_key }),
        corpusId: input.corpusId ?? null,
        page: hit.page,
        chunkKey: hit.key,
        text: chunk.content ?? '',
        score: hit.score ?? 0,
        annotationLabel: input.label ?? null,
      },
    ];
  });
}

interface ChunkRow {
  corpus_visible: boolean;
  id: string | null;
  content: string | null;
  document_id: string;
  document_key: string;
  document_name: string | null;
}

/**
 * The chunks found, each with the document it belongs to (a visible file, by key and owner), in
 * one statement; with `corpusId`, that statement also checks the corpus is visible (NOT_FOUND if
 * not), so that a corpus search reads nothing but the search before it. A chunk whose document is
 * not visible is left out.
 */
async function chunksOf(sql: SqlClient, ctx: AgentContext, ids: string[], corpusId: string | null): Promise<Map<string, ChunkRow>> {
  const rows = await sql.query<ChunkRow>(
    `SELECT ($1::uuid IS NULL OR EXISTS (
              SELECT 1 FROM "corpora" k WHERE k.id = $1::uuid AND k.tenant_id = $2 AND (k.user_id IS NULL OR k.user_id = $3))) AS corpus_visible,
            p.id, p.content, p.document_id, p.document_key, p.document_name
     FROM (SELECT 1) one LEFT JOIN LATERAL (
       SELECT c.id::text AS id, c.content, d.id::text AS document_id, d.key AS document_key, d.name AS document_name
       FROM "resources" c
       JOIN "resources" d ON d.tenant_id = $2 AND d.key = c.metadata->>'parent' AND d.user_id IS NOT DISTINCT FROM c.user_id
         AND d.category = $4 AND (d.user_id IS NULL OR d.user_id = $3)
       WHERE c.id = ANY ($5::uuid[])) p ON true`,
    [corpusId, ctx.tenantId, ctx.userId, FILE_CATEGORY, ids],
  );
  if (corpusId && !rows[0]?.corpus_visible) throw new NotFoundError('Corpus', corpusId);
  const chunks = new Map<string, ChunkRow>();
  for (const row of rows) if (row.id && !chunks.has(row.id)) chunks.set(row.id, row);
  return chunks;
}
