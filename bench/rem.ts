/**
 * REM at scale. For each backend, one database grows through the sizes (default 10k → 100k; add
 * 1000000 for PostgreSQL) with generated entities (3 edges each, 384-d embeddings), written through
 * the bulk import (`remgraph import`'s code path). At each size it prints (one JSON line per figure):
 *   - rem-ingest: the bulk import's rate and time (the index build included, and apart), and the
 *     ingest rate over HTTP with the index live;
 *   - rem: p50/p99 over GraphQL HTTP of LOOKUP, FUZZY, SEARCH (top 10) and TRAVERSE depth 3 limit 100,
 *     against a server in its own process, and p99 ÷ p50 (target of issue 41: ≤ 3);
 *   - rem-growth (each size after the first): per mode, p50 and p99 at this size ÷ at the size before
 *     (target of issue 41: p99 at 1M ÷ p99 at 100k ≤ 1.5 on PostgreSQL);
 *   - rem-reads (first size only): `session(id)` requests/s at 32 concurrent clients, remgraph next
 *     to a bare graphql-yoga server measured in the same run, and their ratio.
 *
 *   npx tsx bench/rem.ts
 *   BENCH_BACKENDS=postgres BENCH_SIZES=10000,100000,1000000 npx tsx bench/rem.ts
 *   BENCH_ITERATIONS=200 BENCH_WARMUP=300 BENCH_CONCURRENCY=32 BENCH_READ_SECONDS=5
 *   BENCH_DATABASE_URL=postgresql://… npx tsx bench/rem.ts   # query latencies and reads on an existing database, keys sampled from it
 *   BENCH_DATA_DIR=/path/to/pglite npx tsx bench/rem.ts      # the same on an existing PGlite directory
 *   BENCH_KEEP=1 …                                            # keep the grown database (prints where) for the two above
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../src/db/database.js';
import { applyMigrations } from '../src/db/migrations.js';
import { userContext } from '../src/auth/agent-context.js';
import { loadConfig } from '../src/config/config.js';
import { HashedLexicalEmbedder } from '../src/rem/embeddings/hashed-lexical.js';
import { importMemory } from '../src/rem/import/import-memory.js';
import { spawnServer } from '../test/support/process.js';
import { entity, fuzzyText, generatedSource, keyOf, rng, WORDS } from './rem-data.js';
import { freshPostgres, startBareServer, summarize } from './support.js';

if (process.argv.includes('--help')) {
  // The usage is the comment above: a bare run starts the whole bench, minutes of work on both backends.
  console.log(
    'Usage: [BENCH_BACKENDS=pglite,postgres] [BENCH_SIZES=10000,100000] [BENCH_ITERATIONS=200] [BENCH_WARMUP=300] [BENCH_CONCURRENCY=32]\n       [BENCH_READ_SECONDS=5] [BENCH_DATABASE_URL=postgresql://… | BENCH_DATA_DIR=dir] [BENCH_KEEP=1] npx tsx bench/rem.ts\nSee the comment at the top of bench/rem.ts for what it prints.',
  );
  process.exit(0);
}

const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',');
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 5);
// Requests before measuring: a fresh server needs a few hundred to reach steady state (JIT, and every
// pooled PostgreSQL connection's catalog caches and prepared statements warmed).
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const TENANT = 'bench';
const USER = 'bench-user';
const HEADERS = { 'content-type': 'application/json', 'x-user-id': USER, 'x-tenant-id': TENANT };

const print = (figures: Record<string, unknown>) => console.log(JSON.stringify(figures));

/**
 * Grows the database to `size` entities through the bulk import (`remgraph import`'s code path: JSONL
 * lines parsed and validated, embedded, written in batches; an import this large drops the vector
 * index and builds it once after), from lines generated here instead of read from a file.
 */
async function grow(db: Database, backend: string, from: number, size: number) {
  const source = generatedSource(from, size);
  const settings = loadConfig(process.env).rem.import;
  const started = performance.now();
  let indexingAt = 0;
  let reported = 0;
  const result = await importMemory(
    { prisma: db.prisma, sql: db.sql, backend: db.backend, embedder: new HashedLexicalEmbedder() },
    { ...userContext(TENANT, USER), isAdmin: true },
    source,
    settings,
    {
      onProgress: (p) => {
        if (p.stage === 'indexing') indexingAt ||= performance.now();
        else if (p.rows - reported >= 50_000) {
          reported = p.rows;
          print({ bench: 'rem-progress', backend, written: from + p.rows, ratePerS: Math.round(p.rows / ((performance.now() - started) / 1000)) });
        }
      },
    },
  );
  const done = performance.now();
  await db.prisma.$executeRawUnsafe('ANALYZE');
  print({
    bench: 'rem-ingest',
    phase: 'bulk import',
    backend,
    entities: size,
    written: result.rows,
    ratePerS: Math.round(result.rows / ((done - started) / 1000)),
    totalS: +((done - started) / 1000).toFixed(1),
    hnswBuildS: indexingAt ? +((done - indexingAt) / 1000).toFixed(1) : null,
    reindexed: result.reindexed,
  });
}

function queries(size: number, seed: number, keys?: string[]) {
  const random = rng(seed);
  const key = () => (keys ? keys[Math.floor(random() * keys.length)]! : keyOf(Math.floor(random() * size)));
  const word = () => WORDS[Math.floor(random() * WORDS.length)]!;
  return {
    LOOKUP: () => `LOOKUP "${key()}"`,
    FUZZY: () => `FUZZY "${fuzzyText(random)}" THRESHOLD 0.5 LIMIT 10`,
    SEARCH: () => `SEARCH "${word()} ${word()} ${word()}" FROM entities LIMIT 10 MIN_SIMILARITY 0.1`,
    TRAVERSE: () => `TRAVERSE FROM "${key()}" DEPTH 3 LIMIT 100`,
  };
}

async function post(url: string, query: string, variables: unknown): Promise<any> {
  const body = JSON.stringify({ query, variables });
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body });
  const result = (await res.json()) as { data?: any; errors?: unknown };
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data;
}

type Summary = ReturnType<typeof summarize>;

/** Each mode's latency summary over HTTP, printed, and by mode. */
async function latencies(url: string, backend: string, size: number, keys?: string[], modes = ['LOOKUP', 'FUZZY', 'SEARCH', 'TRAVERSE']) {
  const byMode = new Map<string, Summary>();
  for (const [mode, make] of Object.entries(queries(size, 7, keys)).filter(([m]) => modes.includes(m))) {
    let hits = 0;
    const samples: number[] = [];
    for (let i = 0; i < ITERATIONS + WARMUP; i++) {
      const t0 = performance.now();
      const data = await post(url, 'query ($q: String!) { remQuery(query: $q) { hits { key score path } } }', { q: make() });
      if (i >= WARMUP) samples.push(performance.now() - t0);
      hits += data.remQuery.hits.length;
    }
    const summary = summarize(samples);
    // Target (issue 41): every mode's p99 within 3× its p50.
    const tail = +(summary.p99 / summary.p50).toFixed(2);
    print({ bench: 'rem', backend, entities: size, mode, via: 'http', meanHits: +(hits / (ITERATIONS + WARMUP)).toFixed(1), ...summary, p99OverP50: tail });
    byMode.set(mode, summary);
  }
  return byMode;
}

/** Growth from one size to the next, per mode (target of issue 41: p99 at 1M within 1.5× of p99 at 100k). */
function growth(backend: string, from: number, to: number, before: Map<string, Summary>, after: Map<string, Summary>) {
  for (const [mode, now] of after) {
    const then = before.get(mode);
    if (!then) continue;
    print({ bench: 'rem-growth', backend, mode, from, to, p50Ratio: +(now.p50 / then.p50).toFixed(2), p99Ratio: +(now.p99 / then.p99).toFixed(2) });
  }
}

/** Ingest over HTTP with the vector index live: every row is inserted into the HNSW graph as it is written. */
async function liveIngest(url: string, backend: string, size: number) {
  const mutation = 'mutation ($items: [MemoryItemInput!]!) { ingest(items: $items) { __typename ... on IngestSuccess { count } } }';
  const batches = 2;
  const items = (b: number) =>
    Array.from({ length: 500 }, (_, j) => ({ entity: { ...entity(size + b * 500 + j, size).entity!, key: `live ${size} ${b} ${j}` } }));
  const started = performance.now();
  for (let b = 0; b < batches; b++) {
    const data = await post(url, mutation, { items: items(b) });
    if (data.ingest.__typename !== 'IngestSuccess') throw new Error(JSON.stringify(data.ingest));
  }
  print({
    bench: 'rem-ingest',
    phase: 'over HTTP, index live',
    backend,
    entities: size,
    written: batches * 500,
    ratePerS: Math.round((batches * 500) / ((performance.now() - started) / 1000)),
  });
}

/** Requests/s of `query` at CONCURRENCY clients, each sending its next request when the last answered. */
async function throughput(url: string, query: string, variables: unknown): Promise<number> {
  const body = JSON.stringify({ query, variables });
  let done = 0;
  let stop = false;
  const client = async () => {
    while (!stop) {
      const res = await fetch(url, { method: 'POST', headers: HEADERS, body });
      const result = (await res.json()) as { errors?: unknown };
      if (result.errors) throw new Error(JSON.stringify(result.errors));
      done += 1;
    }
  };
  const warm = Array.from({ length: CONCURRENCY }, client);
  await new Promise((r) => setTimeout(r, 1000));
  const counted = done;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, READ_SECONDS * 1000));
  const rate = (done - counted) / ((performance.now() - started) / 1000);
  stop = true;
  await Promise.all(warm);
  return Math.round(rate);
}

/** Sequential latency of one query: what a request costs on this machine right now, for scale. */
async function floor(url: string, query: string, variables: unknown) {
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS + WARMUP; i++) {
    const t0 = performance.now();
    await post(url, query, variables);
    if (i >= WARMUP) samples.push(performance.now() - t0);
  }
  return summarize(samples);
}

async function reads(url: string, backend: string) {
  const created = await post(url, 'mutation { createSession(input: {name: "bench"}) { ... on CreateSessionSuccess { session { id } } } }', {});
  const query = 'query ($id: ID!) { session(id: $id) { id name updatedAt } }';
  const variables = { id: created.createSession.session.id };
  const remgraph = await throughput(url, query, variables);
  const bare = await startBareServer('bench/bare-yoga-server.ts');
  try {
    const baseline = await throughput(bare.url, query, variables);
    print({
      bench: 'rem-reads',
      backend,
      query: 'session(id)',
      clients: CONCURRENCY,
      remgraphPerS: remgraph,
      bareYogaPerS: baseline,
      ratio: +(remgraph / baseline).toFixed(2),
    });
    // The same query answered by a bare yoga server with a constant: the HTTP floor of this machine now.
    print({ bench: 'rem-floor', backend, query: 'session(id)', via: 'bare yoga, sequential', ...(await floor(bare.url, query, variables)) });
    print({ bench: 'rem-floor', backend, query: 'session(id)', via: 'remgraph, sequential', ...(await floor(url, query, variables)) });
  } finally {
    bare.stop();
  }
}

async function benchBackend(backend: string) {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  if (backend === 'postgres') {
    const db = await freshPostgres('remgraph_bench_rem');
    env = { DATABASE_URL: db.url };
    cleanup = process.env.BENCH_KEEP ? async () => print({ bench: 'rem-kept', url: db.url }) : db.drop;
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'remgraph-bench-'));
    env = { DATA_DIR: join(dir, 'data') };
    cleanup = process.env.BENCH_KEEP ? async () => print({ bench: 'rem-kept', dataDir: env.DATA_DIR }) : () => rm(dir, { recursive: true, force: true });
  }
  const settings = { url: env.DATABASE_URL, dataDir: env.DATA_DIR ?? '', poolSize: 4 };
  try {
    let size = 0;
    let previous: Map<string, Summary> | undefined;
    for (const [i, target] of SIZES.entries()) {
      // PGlite allows one process per data directory: grow in this process, then serve from another.
      const db = await openDatabase(settings);
      try {
        await applyMigrations(db);
        await grow(db, backend, size, target);
      } finally {
        await db.close();
      }
      const grownFrom = size;
      size = target;
      // Generous: opening a grown PGlite directory on a busy machine takes a while.
      // liveIngest sends batches of 500 items, past the default MAX_LIST_ARGUMENT (100).
      const server = await spawnServer({ ...env, LOG_LEVEL: 'info', MAX_LIST_ARGUMENT: '500' }, 600_000);
      try {
        const measured = await latencies(server.url, backend, size);
        if (previous) growth(backend, grownFrom, size, previous, measured);
        previous = measured;
        await liveIngest(server.url, backend, size);
        if (i === 0) await reads(server.url, backend);
      } finally {
        await server.stop();
      }
    }
  } finally {
    await cleanup();
  }
}

/** Latencies on a database that already holds memory (e.g. kept from an earlier run), keys sampled from it. */
async function benchExisting(existing: { url: string } | { dataDir: string }) {
  const url = 'url' in existing ? existing.url : undefined;
  const backend = url ? 'postgres' : 'pglite';
  const db = await openDatabase({ url, dataDir: 'dataDir' in existing ? existing.dataDir : '', poolSize: 2 });
  let size: number;
  let keys: string[];
  let vectors: number;
  try {
    await applyMigrations(db);
    size = Number((await db.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "kv_store" WHERE "tenant_id" = $1`, TENANT))[0]!.n);
    keys = (
      await db.prisma.$queryRawUnsafe<{ k: string }[]>(
        `SELECT "entity_key" AS k FROM "kv_store" TABLESAMPLE SYSTEM (1) WHERE "tenant_id" = $1 AND "entity_key" NOT LIKE 'live %' LIMIT 2000`,
        TENANT,
      )
    ).map((r) => r.k);
    vectors = Number((await db.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM (SELECT 1 FROM "embeddings" LIMIT 1) e`))[0]!.n);
  } finally {
    await db.close();
  }
  const server = await spawnServer(
    url ? { DATABASE_URL: url, LOG_LEVEL: 'info' } : { DATA_DIR: (existing as { dataDir: string }).dataDir, LOG_LEVEL: 'info' },
    600_000,
  );
  try {
    await latencies(server.url, backend, size, keys, vectors ? undefined : ['LOOKUP', 'FUZZY', 'TRAVERSE']);
    await reads(server.url, backend);
    print({
      bench: 'rem-floor',
      backend,
      query: '{ viewer { userId } } (no database)',
      via: 'remgraph, sequential',
      ...(await floor(server.url, '{ viewer { userId } }', {})),
    });
  } finally {
    await server.stop();
  }
}

if (process.env.BENCH_DATABASE_URL) await benchExisting({ url: process.env.BENCH_DATABASE_URL });
else if (process.env.BENCH_DATA_DIR) await benchExisting({ dataDir: process.env.BENCH_DATA_DIR });
else for (const backend of BACKENDS) await benchBackend(backend);
process.exit(0);
