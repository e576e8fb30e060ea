/**
 * FUZZY's tail, in this process (issue 41, target 5): a PGlite database (in its worker thread, as
 * the server runs it) grown to BENCH_ENTITIES (default 20k) by the bulk import, then BENCH_QUERIES
 * (default 500) FUZZY calls as bench/rem.ts sends them, one at a time, each timed and then
 * explained (EXPLAIN ANALYZE, BUFFERS of the function's candidate query): which texts are slow,
 * how many keys the trigram index hands over and how many the recheck drops, the buffers read, and
 * this thread's GC pauses meanwhile. `BENCH_DATABASE_URL=postgresql://…` runs it on an existing
 * PostgreSQL database grown by bench/rem.ts (`BENCH_KEEP=1`) instead.
 *
 *   npx tsx bench/fuzzy-tail.ts
 *   BENCH_ENTITIES=2000 BENCH_QUERIES=100 npx tsx bench/fuzzy-tail.ts   # smoke size
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userContext } from '../src/auth/agent-context.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { applyMigrations } from '../src/db/migrations.js';
import { HashedLexicalEmbedder } from '../src/rem/embeddings/hashed-lexical.js';
import { importMemory } from '../src/rem/import/import-memory.js';
import { fuzzyText, generatedSource, rng } from './rem-data.js';
import { percentile } from './support.js';

const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 20_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 500);
const [TENANT, USER] = ['bench', 'bench-user'];
const config = loadConfig(process.env);
const CANDIDATES = Math.max(10, config.rem.fuzzyCandidates);
const print = (line: object) => console.log(JSON.stringify(line));

const dir = process.env.BENCH_DATABASE_URL ? '' : await mkdtemp(join(tmpdir(), 'remgraph-fuzzy-tail-'));
const db = await openDatabase({ url: process.env.BENCH_DATABASE_URL, dataDir: dir && join(dir, 'data'), poolSize: 2 });
try {
  await applyMigrations(db);
  if (!process.env.BENCH_DATABASE_URL) {
    const started = performance.now();
    const deps = { prisma: db.prisma, sql: db.sql, backend: db.backend, embedder: new HashedLexicalEmbedder() };
    await importMemory(deps, { ...userContext(TENANT, USER), isAdmin: true }, generatedSource(0, ENTITIES), config.rem.import);
    await db.sql.query('ANALYZE');
    print({ bench: 'fuzzy-tail-seed', entities: ENTITIES, seconds: +((performance.now() - started) / 1000).toFixed(1) });
  }
  const gcPauses: number[] = [];
  const observer = new PerformanceObserver((list) => gcPauses.push(...list.getEntries().map((e) => e.duration)));
  observer.observe({ entryTypes: ['gc'] });
  const random = rng(7);
  const samples: { text: string; ms: number; hits: number; indexRows: number; recheckRemoved: number; heapRows: number; buffers: number; lossy: number }[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const text = fuzzyText(random);
    const t0 = performance.now();
    const hits = await db.sql.query(`SELECT * FROM "rem_fuzzy_custom"($1, $2, $3, $4::real, $5::int, $6::int)`, [TENANT, USER, text, 0.5, 10, CANDIDATES]);
    const ms = performance.now() - t0;
    // The function's candidate query, explained with the function's settings.
    const plan = await db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SELECT set_config('pg_trgm.word_similarity_threshold', '0.5', true), set_config('enable_seqscan', 'off', true)`);
      const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': any }[]>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT kv.entity_key, word_similarity($1, kv.entity_key) AS score FROM "kv_store" kv
         WHERE kv.entity_key %> $1 AND kv.tenant_id = $2 AND (kv.user_id = $3 OR kv.user_id IS NULL) LIMIT $4`,
        text,
        TENANT,
        USER,
        CANDIDATES,
      );
      return rows[0]!['QUERY PLAN'][0].Plan;
    });
    const nodes: any[] = [];
    const walk = (node: any) => {
      nodes.push(node);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan);
    const index = nodes.find((n) => n['Node Type'] === 'Bitmap Index Scan');
    const heap = nodes.find((n) => n['Node Type'] === 'Bitmap Heap Scan');
    samples.push({
      text,
      ms,
      hits: hits.length,
      indexRows: index?.['Actual Rows'] ?? -1,
      recheckRemoved: heap?.['Rows Removed by Index Recheck'] ?? 0,
      heapRows: heap?.['Actual Rows'] ?? -1,
      buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0),
      lossy: heap?.['Lossy Heap Blocks'] ?? 0,
    });
  }
  observer.disconnect();
  const sorted = [...samples].sort((a, b) => a.ms - b.ms);
  const ms = sorted.map((s) => s.ms);
  const mid = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const tail = sorted.slice(Math.floor(sorted.length * 0.95));
  print({
    bench: 'fuzzy-tail',
    backend: db.backend,
    queries: QUERIES,
    p50Ms: +percentile(ms, 50).toFixed(2),
    p99Ms: +percentile(ms, 99).toFixed(2),
    p99OverP50: +(percentile(ms, 99) / percentile(ms, 50)).toFixed(2),
    indexRowsMedian: mid(samples.map((s) => s.indexRows)),
    indexRowsMedianSlowest5pct: mid(tail.map((s) => s.indexRows)),
    buffersMedian: mid(samples.map((s) => s.buffers)),
    buffersMedianSlowest5pct: mid(tail.map((s) => s.buffers)),
    gcPauses: gcPauses.length,
    gcMaxMs: +Math.max(0, ...gcPauses).toFixed(1),
  });
  for (const s of [...sorted.slice(-10).reverse(), ...sorted.slice(0, 5)]) print({ bench: 'fuzzy-tail-query', ...s, ms: +s.ms.toFixed(2) });
} finally {
  await db.close();
  if (dir) await rm(dir, { recursive: true, force: true });
}
process.exit(0);
