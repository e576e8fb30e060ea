import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { addDocumentsToCorpus, createCorpus, removeDocumentsFromCorpus } from '../../src/documents/corpora.js';
import { searchPassages, type Passage } from '../../src/documents/search.js';
import { HashedLexicalEmbedder } from '../../src/rem/embeddings/hashed-lexical.js';
import { CHUNK_CATEGORY, FILE_CATEGORY } from '../../src/rem/ingest/ingest-file.js';
import { ingestFile } from '../../src/rem/ingest/ingest-file.js';
import { deleteMemory } from '../../src/rem/memory/delete.js';
import { ingest } from '../../src/rem/memory/ingest.js';
import type { MemoryItemInput } from '../../src/rem/memory/inputs.js';
import { NotFoundError } from '../../src/errors.js';
import { RemService } from '../../src/rem/service.js';
import { vectorLiteral } from '../../src/rem/embeddings/provider.js';
import type { AgentContext } from '../../src/auth/agent-context.js';
import { contextOf } from '../support/client.js';
import { countingDatabase } from '../support/query-count.js';
import { explainAnalyzed, type StatementReads } from '../support/explain.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * similarity_search within a corpus or a document (issue 39): the passages are the best of the scope
 * (as exact brute force over the scope's chunks ranks them) and only the scope's, whichever way the
 * search goes (exact distances over a small scope, the HNSW index with a check per row over a large
 * one); and the work of a search in a small scope does not grow with the chunks outside it.
 */
const embedder = new HashedLexicalEmbedder();
const WORDS = [
  'rent',
  'payment',
  'termination',
  'notice',
  'deposit',
  'repairs',
  'insurance',
  'liability',
  'delivery',
  'invoice',
  'warranty',
  'renewal',
  'tenant',
  'landlord',
  'penalty',
  'interest',
  'arbitration',
  'clause',
  'schedule',
  'premises',
  'utilities',
  'assignment',
  'default',
  'remedy',
];
const K = 10;
const QUERY = 'late rent payment penalty interest notice';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Deterministic chunk text: 12 words of WORDS picked by a small LCG seeded by the chunk. */
function chunkText(seed: number): string {
  let x = seed * 2654435761;
  return Array.from({ length: 12 }, () => WORDS[(x = (x * 1103515245 + 12345) >>> 0) % WORDS.length]).join(' ');
}

/** `documents` files of `chunks` chunks each, keyed `<prefix>-<d>`, written as ingestFile writes them. */
async function files(ctx: AgentContext, prefix: string, documents: number, chunks: number, seed = 0): Promise<void> {
  const items: MemoryItemInput[] = [];
  for (let d = 0; d < documents; d++) {
    const key = `${prefix}-${d}`;
    items.push({ resource: { key, name: `${key}.md`, category: FILE_CATEGORY, metadata: { chunks } } });
    for (let c = 0; c < chunks; c++) {
      items.push({
        resource: { key: `${key}-chunk-${c + 1}`, category: CHUNK_CATEGORY, content: chunkText(seed + d * 1000 + c), metadata: { parent: key, index: c + 1 } },
      });
    }
  }
  for (let i = 0; i < items.length; i += 1000) await ingest({ prisma: server.db.prisma, embedder }, ctx, items.slice(i, i + 1000), { maxItems: 1000 });
}

const idsOf = async (ctx: AgentContext, keys: string[]) =>
  (await server.db.prisma.resource.findMany({ where: { tenantId: ctx.tenantId, userId: ctx.userId, key: { in: keys } }, select: { id: true } })).map(
    (r) => r.id,
  );

/** The K best chunks of these documents by exact cosine similarity, computed here. */
async function bruteForce(ctx: AgentContext, documentKeys: string[]): Promise<{ key: string; score: number }[]> {
  const chunks = await server.db.prisma.resource.findMany({
    where: { tenantId: ctx.tenantId, userId: ctx.userId, category: CHUNK_CATEGORY },
    select: { key: true, content: true, metadata: true },
  });
  const inScope = chunks.filter((c) => documentKeys.includes((c.metadata as { parent: string }).parent));
  const [query, ...vectors] = await embedder.embed([QUERY, ...inScope.map((c) => c.content!)]);
  const cosine = (a: number[], b: number[]) => {
    let dot = 0,
      na = 0,
      nb = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i]! * b[i]!;
      na += a[i]! * a[i]!;
      nb += b[i]! * b[i]!;
    }
    return dot / Math.sqrt(na * nb);
  };
  return inScope
    .map((c, i) => ({ key: c.key, score: cosine(query!, vectors[i]!) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, K);
}

const remWith = (searchExactRows?: number) =>
  new RemService(
    { prisma: server.db.prisma, sql: server.db.sql, embedder },
    { ...loadConfig({ DATA_DIR: 'memory://' }).rem, ...(searchExactRows ? { searchExactRows } : {}) },
  );

describe('similarity_search within a scope', () => {
  const ctx = contextOf({ headers: { 'x-tenant-id': `t-${randomUUID()}`, 'x-user-id': `u-${randomUUID()}` } });
  const other = contextOf({ headers: { 'x-tenant-id': ctx.tenantId, 'x-user-id': `u-${randomUUID()}` } });
  const inCorpus = ['lease-0', 'lease-2', 'lease-5'];
  let corpusId: string;
  let documentId: string;

  beforeAll(async () => {
    await files(ctx, 'lease', 8, 25);
    // Another user's files with the same keys and the texts of the corpus's: never in this user's results.
    await files(other, 'lease', 8, 25);
    corpusId = (await createCorpus(server.db.prisma, ctx, { name: 'leases' })).id;
    await server.db.prisma.corpusDocument.createMany({ data: (await idsOf(ctx, inCorpus)).map((documentId) => ({ corpusId, documentId })) });
    documentId = (await idsOf(ctx, ['lease-5']))[0]!;
    await server.db.prisma.$executeRawUnsafe('ANALYZE resources, embeddings, kv_store, corpus_documents');
  });

  const check = (passages: Passage[], documents: string[]) => {
    expect(passages.length).toBe(K);
    for (const p of passages) expect(documents).toContain(p.documentKey);
    return passages.map((p) => p.chunkKey);
  };

  it('returns the best passages of the corpus, and only its, by exact distances over a small scope', async () => {
    const expected = await bruteForce(ctx, inCorpus);
    const passages = await searchPassages({ prisma: server.db.prisma, rem: remWith() }, ctx, { query: QUERY, k: K, corpusId });
    check(passages, inCorpus);
    // Ties aside, the same chunks: the scores are exactly the brute force's, in its order.
    passages.forEach((p, i) => expect(p.score).toBeCloseTo(expected[i]!.score, 5));
  });

  it('returns the best passages of the corpus through the HNSW index with a check per row', async () => {
    const expected = await bruteForce(ctx, inCorpus);
    // Every scope counts as large: the index is walked in order and each row checked against the corpus.
    const passages = await searchPassages({ prisma: server.db.prisma, rem: remWith(1) }, ctx, { query: QUERY, k: K, corpusId });
    const keys = check(passages, inCorpus);
    // Approximate by nature; on 400 vectors HNSW finds (nearly) all of the true best.
    expect(keys.filter((k) => expected.some((e) => e.key === k)).length).toBeGreaterThanOrEqual(K - 1);
  });

  it('finds the chunks SEARCH finds, each with its own text and file, for every scope and both ways', async () => {
    // The file-chunk search builds its own statement around SEARCH's choice of rows: same rows, same order.
    const files = await server.db.prisma.resource.findMany({ where: { tenantId: ctx.tenantId, userId: ctx.userId, category: FILE_CATEGORY } });
    const scopes = [{}, { corpus: corpusId }, { parents: [`${ctx.userId}:lease-5`, `${ctx.userId}:lease-6`] }, { corpus: corpusId, contentContains: 'rent' }];
    for (const rem of [remWith(), remWith(1)]) {
      for (const scope of scopes) {
        const query = { text: QUERY, limit: K, minSimilarity: 0, filter: { type: CHUNK_CATEGORY, ...scope } };
        const hits = await rem.search(ctx, { mode: 'SEARCH', table: 'resources', ...query });
        const found = await rem.searchFileChunks(ctx, query);
        expect(hits.length, JSON.stringify(scope)).toBeGreaterThan(0);
        expect(found.chunks.map((c) => [c.id, c.key, c.score, c.page])).toEqual(hits.map((h) => [h.id, h.key, h.score, h.page]));
        const rows = await server.db.prisma.resource.findMany({ where: { id: { in: hits.map((h) => h.id) } } });
        for (const chunk of found.chunks) {
          const row = rows.find((r) => r.id === chunk.id)!;
          expect(chunk.content).toBe(row.content);
          const file = files.find((f) => f.key === (row.metadata as { parent: string }).parent)!;
          expect(chunk.file).toEqual({ id: file.id, key: file.key, name: file.name });
        }
      }
    }
  });

  it('returns the best passages of one document, and only its, both ways', async () => {
    const expected = await bruteForce(ctx, ['lease-5']);
    for (const rem of [remWith(), remWith(1)]) {
      const passages = await searchPassages({ prisma: server.db.prisma, rem }, ctx, { query: QUERY, k: K, documentId });
      const keys = check(passages, ['lease-5']);
      expect(keys.filter((k) => expected.some((e) => e.key === k)).length).toBeGreaterThanOrEqual(K - 1);
    }
  });
});

describe('the statements of similarity_search', () => {
  it('sends one statement for a corpus: the search, with the chunks, their documents and whether the corpus is visible', async () => {
    const tenant = `t-${randomUUID()}`;
    const ctx = contextOf({ headers: { 'x-tenant-id': tenant, 'x-user-id': `u-${randomUUID()}` } });
    const other = contextOf({ headers: { 'x-tenant-id': tenant, 'x-user-id': `u-${randomUUID()}` } });
    await files(ctx, 'mine', 2, 5);
    // Shared files (no owner): the caller sees their chunks, whoever's corpus holds them.
    await files({ ...contextOf({ headers: { 'x-tenant-id': tenant } }), isAdmin: true }, 'shared', 2, 5, 50);
    const mine = (await createCorpus(server.db.prisma, ctx, { name: 'mine' })).id;
    const empty = (await createCorpus(server.db.prisma, ctx, { name: 'empty' })).id;
    const theirs = (await createCorpus(server.db.prisma, other, { name: 'theirs' })).id;
    const [documentId] = await idsOf(ctx, ['mine-0']);
    await server.db.prisma.corpusDocument.createMany({ data: [{ corpusId: mine, documentId: documentId! }] });
    const shared = await server.db.prisma.resource.findMany({ where: { tenantId: tenant, userId: null, category: FILE_CATEGORY }, select: { id: true } });
    await server.db.prisma.corpusDocument.createMany({ data: shared.map((d) => ({ corpusId: theirs, documentId: d.id })) });

    const db = countingDatabase(server.db);
    const deps = {
      prisma: db.prisma,
      rem: new RemService({ prisma: db.prisma, sql: db.sql, embedder }, loadConfig({ DATA_DIR: 'memory://' }).rem),
    };
    const run = async (scope: { corpusId?: string; documentId?: string }) => {
      db.reset();
      const passages = await searchPassages(deps, ctx, { query: QUERY, k: 3, ...scope }).catch((error: unknown) => error);
      return { passages, statements: db.queries };
    };
    const inCorpus = await run({ corpusId: mine });
    expect((inCorpus.passages as Passage[]).map((p) => [p.documentKey, p.title, p.corpusId])).toEqual(Array(3).fill(['mine-0', 'mine-0.md', mine]));
    expect(inCorpus.statements).toBe(1);
    // The document's lookup (NOT_FOUND before any search), then the search with the chunks.
    const inDocument = await run({ documentId });
    expect((inDocument.passages as Passage[]).map((p) => p.documentKey)).toEqual(['mine-0', 'mine-0', 'mine-0']);
    expect(inDocument.statements).toBe(2);
    expect(await run({ corpusId: empty })).toEqual({ passages: [], statements: 1 });
    // Another user's corpus: NOT_FOUND, though the search found the shared chunks it holds.
    for (const corpusId of [theirs, randomUUID()]) {
      const hidden = await run({ corpusId });
      expect(hidden.passages).toBeInstanceOf(NotFoundError);
      expect(hidden.passages).toMatchObject({ message: expect.stringContaining(corpusId) });
      expect(hidden.statements).toBe(1);
    }
    const seen = await searchPassages(deps, other, { query: QUERY, k: 3, corpusId: theirs });
    // Its owner reads them.
    expect(seen.map((p) => p.documentKey.replace(/\d+$/, ''))).toEqual(['shared-', 'shared-', 'shared-']);
  });
});

describe('the work of a scoped search', () => {
  /** What the SEARCH of a scope read (buffers), with its filter as searchPassages builds it. */
  async function searchReads(ctx: AgentContext, filter: Record<string, unknown>) {
    const [vector] = await embedder.embed([QUERY]);
    return explainAnalyzed(
      server.db.prisma,
      `SELECT * FROM "rem_search_custom"($1, $2, $3, $4::int, $5, $6::text[], $7::int, $8::float8, $9::jsonb, $10::int)`,
      [ctx.tenantId, ctx.userId, vectorLiteral(vector!), embedder.dimension, embedder.model, ['resources'], K, 1, JSON.stringify(filter), 2000],
    );
  }
  // A B-tree one level deeper, and the heap pages a newer run of rows sits on, cost a few buffers more.
  const BUFFER_SLACK = 8;

  it('reads no more for a corpus or a document when ten times as many chunks lie outside them', async () => {
    const ctx = contextOf({ headers: { 'x-tenant-id': `t-${randomUUID()}`, 'x-user-id': `u-${randomUUID()}` } });
    await files(ctx, 'scope', 2, 20, 7);
    await files(ctx, 'outside', 10, 20, 100);
    const corpusId = (await createCorpus(server.db.prisma, ctx, { name: 'scope' })).id;
    await server.db.prisma.corpusDocument.createMany({ data: (await idsOf(ctx, ['scope-0', 'scope-1'])).map((documentId) => ({ corpusId, documentId })) });
    const scopes = [
      { type: CHUNK_CATEGORY, corpus: corpusId },
      { type: CHUNK_CATEGORY, parents: [`${ctx.userId}:scope-1`] },
    ];
    await server.db.prisma.$executeRawUnsafe('ANALYZE resources, embeddings, kv_store, corpus_documents');
    const before: StatementReads[] = [];
    for (const scope of scopes) before.push(await searchReads(ctx, scope));
    await files(ctx, 'more', 100, 20, 5000);
    await server.db.prisma.$executeRawUnsafe('ANALYZE resources, embeddings, kv_store, corpus_documents');
    const after: StatementReads[] = [];
    for (const scope of scopes) after.push(await searchReads(ctx, scope));
    scopes.forEach((scope, i) => {
      expect(
        after[i]!.buffers,
        `${JSON.stringify(scope)}: ${before[i]!.buffers} buffers with 200 chunks outside, ${after[i]!.buffers} with 2,200`,
      ).toBeLessThanOrEqual(before[i]!.buffers + BUFFER_SLACK);
    });
  });
});

describe('the chunk counts a scoped search reads', () => {
  const config = loadConfig({ DATA_DIR: 'memory://', INGEST_CHUNK_CHARS: '200', INGEST_CHUNK_OVERLAP_CHARS: '0' });
  /** A markdown file of `sections` headed sections, each its own chunk. */
  const markdown = (sections: number) =>
    new TextEncoder().encode(Array.from({ length: sections }, (_, i) => `# Part ${i + 1}\n\n${chunkText(i)}`).join('\n\n'));
  const ingestMarkdown = (ctx: AgentContext, key: string, sections: number) =>
    ingestFile({ prisma: server.db.prisma, embedder }, ctx, { filename: `${key}.md`, key, bytes: markdown(sections) }, config.ingest);

  /** What the search reads: the corpus's chunks by owner, as the triggers keep them. */
  const stored = async (corpusId: string) =>
    Object.fromEntries((await server.db.prisma.corpusChunkCount.findMany({ where: { corpusId }, orderBy: { owner: 'asc' } })).map((c) => [c.owner, c.chunks]));
  /** The same counted from the rows: the chunks of the corpus's documents, by the documents' owner. */
  async function counted(corpusId: string): Promise<Record<string, number>> {
    const rows = await server.db.sql.query<{ owner: string; chunks: number }>(
      `SELECT COALESCE(d.user_id, '') AS owner, count(*)::int AS chunks
       FROM "corpus_documents" cd JOIN "resources" d ON d.id = cd.document_id
       JOIN "resources" x ON x.tenant_id = d.tenant_id AND x.user_id IS NOT DISTINCT FROM d.user_id AND x.metadata->>'parent' = d.key
       WHERE cd.corpus_id = $1::uuid GROUP BY 1 ORDER BY 1`,
      [corpusId],
    );
    return Object.fromEntries(rows.map((r) => [r.owner, r.chunks]));
  }
  const expectCounts = async (corpusId: string, expected: Record<string, number>) => {
    const fromRows = await counted(corpusId);
    const kept = Object.fromEntries(Object.entries(await stored(corpusId)).filter(([, n]) => n !== 0));
    expect(fromRows).toEqual(expected);
    expect(kept).toEqual(expected);
  };

  it('stay right across ingest, re-ingest, membership changes and document deletes', async () => {
    const tenant = `t-${randomUUID()}`;
    const ctx = contextOf({ headers: { 'x-tenant-id': tenant, 'x-user-id': `u-${randomUUID()}` } });
    const admin = { ...contextOf({ headers: { 'x-tenant-id': tenant } }), isAdmin: true };
    const a = (await ingestMarkdown(ctx, 'alpha', 6)).resource;
    const b = (await ingestMarkdown(ctx, 'beta', 4)).resource;
    const shared = (await ingestMarkdown(admin, 'common', 3)).resource;
    // The same key under another owner: never counted for this corpus.
    await ingestMarkdown(contextOf({ headers: { 'x-tenant-id': tenant, 'x-user-id': `u-${randomUUID()}` } }), 'alpha', 9);
    const corpus = (await createCorpus(server.db.prisma, ctx, { name: 'counted' })).id;
    await expectCounts(corpus, {});
    await addDocumentsToCorpus(server.db.prisma, ctx, corpus, [a.id, b.id, shared.id]);
    await expectCounts(corpus, { '': 3, [ctx.userId!]: 10 });
    // Re-ingested with fewer chunks, then with more.
    await ingestMarkdown(ctx, 'alpha', 2);
    await expectCounts(corpus, { '': 3, [ctx.userId!]: 6 });
    await ingestMarkdown(ctx, 'beta', 7);
    await expectCounts(corpus, { '': 3, [ctx.userId!]: 9 });
    await removeDocumentsFromCorpus(server.db.prisma, ctx, corpus, [b.id]);
    await expectCounts(corpus, { '': 3, [ctx.userId!]: 2 });
    await addDocumentsToCorpus(server.db.prisma, ctx, corpus, [b.id]);
    await expectCounts(corpus, { '': 3, [ctx.userId!]: 9 });
    // A deleted document leaves its corpora (its chunks stay, and count for no corpus).
    await deleteMemory({ prisma: server.db.prisma }, ctx, 'resource', 'alpha');
    await expectCounts(corpus, { '': 3, [ctx.userId!]: 7 });
    // Chunks of a file written before the file itself, then the file joining the corpus.
    await ingest({ prisma: server.db.prisma, embedder }, ctx, [
      { resource: { key: 'late-chunk-1', category: CHUNK_CATEGORY, content: chunkText(1), metadata: { parent: 'late' } } },
      { resource: { key: 'late-chunk-2', category: CHUNK_CATEGORY, content: chunkText(2), metadata: { parent: 'late' } } },
    ]);
    await ingest({ prisma: server.db.prisma, embedder }, ctx, [{ resource: { key: 'late', name: 'late.md', category: FILE_CATEGORY } }]);
    await addDocumentsToCorpus(server.db.prisma, ctx, corpus, await idsOf(ctx, ['late']));
    await expectCounts(corpus, { '': 3, [ctx.userId!]: 9 });
    // The chunks' own deletes, and a document deleted with its chunks in one statement.
    await server.db.prisma.resource.deleteMany({ where: { tenantId: tenant, userId: ctx.userId, key: { in: ['late', 'late-chunk-1'] } } });
    await expectCounts(corpus, { '': 3, [ctx.userId!]: 7 });
    await server.db.prisma.resource.deleteMany({ where: { tenantId: tenant, userId: ctx.userId, key: { startsWith: 'beta-chunk-' } } });
    await expectCounts(corpus, { '': 3 });
    // The corpus's counts go with it.
    await server.db.prisma.corpus.delete({ where: { id: corpus } });
    expect(await server.db.prisma.corpusChunkCount.count({ where: { corpusId: corpus } })).toBe(0);
  });

  it('choose exact distances for a small corpus in a large tenant, and its search equals brute force', async () => {
    const ctx = contextOf({ headers: { 'x-tenant-id': `t-${randomUUID()}`, 'x-user-id': `u-${randomUUID()}` } });
    await files(ctx, 'few', 2, 10, 11);
    await files(ctx, 'many', 30, 10, 300);
    const corpusId = (await createCorpus(server.db.prisma, ctx, { name: 'few' })).id;
    await addDocumentsToCorpus(server.db.prisma, ctx, corpusId, await idsOf(ctx, ['few-0', 'few-1']));
    await server.db.prisma.$executeRawUnsafe('ANALYZE resources, embeddings, kv_store, corpus_documents');
    const expected = await bruteForce(ctx, ['few-0', 'few-1']);
    // 20 chunks in scope and a threshold of 21: exact distances, whatever the 300 chunks outside.
    const passages = await searchPassages({ prisma: server.db.prisma, rem: remWith(21) }, ctx, { query: QUERY, k: K, corpusId });
    expect(passages.map((p) => p.documentKey).every((d) => d === 'few-0' || d === 'few-1')).toBe(true);
    expect(passages).toHaveLength(K);
    passages.forEach((p, i) => expect(p.score).toBeCloseTo(expected[i]!.score, 5));
  });
});
