/**
 * REM query latency at 10k and 100k generated entities (with 3 edges each and embeddings), on
 * embedded PGlite and on PostgreSQL: p50/p99 of LOOKUP, FUZZY, SEARCH and TRAVERSE depth 3, through
 * the service (in process) and through GraphQL over HTTP. Prints one JSON line per figure.
 *
 *   npx tsx bench/rem.ts                       # both backends, 10k and 100k
 *   BENCH_SIZES=10000 BENCH_BACKENDS=pglite npx tsx bench/rem.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, type App } from '../src/app.js';
import { contextOf } from '../test/support/client.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { HashedLexicalEmbedder } from '../src/rem/embeddings/hashed-lexical.js';
import { vectorLiteral } from '../src/rem/embeddings/provider.js';
import { RemService } from '../src/rem/service.js';
import { freshPostgres, summarize } from './support.js';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',');
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const TENANT = 'bench';
const USER = 'bench-user';

const ctx = contextOf({ headers: { 'x-user-id': USER, 'x-tenant-id': TENANT } });

// Deterministic pseudo-random numbers (mulberry32) so that runs are comparable.
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pronounceable made-up words (consonant-vowel syllables): about as varied in trigrams as real words.
const CONSONANTS = 'bcdfghjklmnprstvwxz';
const VOWELS = 'aeiou';
function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  const letter = (from: string) => from[Math.floor(random() * from.length)]!;
  while (words.size < size) {
    const n = 2 + Math.floor(random() * 3);
    words.add(Array.from({ length: n }, () => letter(CONSONANTS) + letter(VOWELS)).join('') + letter(CONSONANTS));
  }
  return [...words];
}

const RELS = ['knows', 'cites', 'part_of'];

async function seed(app: App, n: number): Promise<{ keys: string[]; words: string[]; seedMs: number }> {
  const started = performance.now();
  const random = rng(42);
  const words = vocabulary(2000, random);
  const pick = () => words[Math.floor(random() * words.length)]!;
  const keys = Array.from({ length: n }, (_, i) => `${pick()}-${pick()}-${i}`);
  const prisma = app.db.prisma;
  const embedder = new HashedLexicalEmbedder();
  await prisma.$executeRawUnsafe('DROP INDEX IF EXISTS "embeddings_hnsw_384_custom"');
  const BATCH = 2000;
  for (let start = 0; start < n; start += BATCH) {
    const idx = Array.from({ length: Math.min(BATCH, n - start) }, (_, j) => start + j);
    const names = idx.map((i) => keys[i]!.split('-').slice(0, 2).join(' '));
    const contents = idx.map((i) => `${names[i - start]} ${Array.from({ length: 12 }, pick).join(' ')}`);
    const edges = idx.map(() =>
      JSON.stringify(RELS.map((rel) => ({ dst: keys[Math.floor(random() * n)]!, rel_type: rel, weight: +(0.5 + random() / 2).toFixed(2) }))),
    );
    const ids = await prisma.$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO "entities" ("key", "name", "content", "summary", "graph_edges", "tags", "tenant_id", "user_id")
       SELECT k, nm, c, left(c, 200), e::jsonb, ARRAY['bench'], $5, $6
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(k, nm, c, e)
       RETURNING "id"::text AS id`,
      idx.map((i) => keys[i]!),
      names,
      contents,
      edges,
      TENANT,
      USER,
    );
    const vectors = await embedder.embed(contents.map((c, j) => `${names[j]}\n${c.slice(0, 200)}\n${c}`));
    await prisma.$executeRawUnsafe(
      `INSERT INTO "embeddings" ("entity_type", "entity_id", "field", "model", "dimension", "content_hash", "embedding", "tenant_id", "user_id")
       SELECT 'entities', id, 'content', $3, 384, 'bench', v::vector, $4, $5
       FROM unnest($1::uuid[], $2::text[]) AS t(id, v)`,
      ids.map((r) => r.id),
      vectors.map(vectorLiteral),
      embedder.model,
      TENANT,
      USER,
    );
  }
  const indexStarted = performance.now();
  if (app.db.backend === 'postgres') await prisma.$executeRawUnsafe(`SET maintenance_work_mem = '512MB'`);
  await prisma.$executeRawUnsafe(
    `CREATE INDEX "embeddings_hnsw_384_custom" ON "embeddings" USING hnsw (("embedding"::vector(384)) vector_cosine_ops) WHERE "dimension" = 384`,
  );
  await prisma.$executeRawUnsafe('ANALYZE');
  const seedMs = performance.now() - started;
  console.log(JSON.stringify({ bench: 'rem-seed', backend: app.db.backend, entities: n, seedMs: Math.round(seedMs), hnswBuildMs: Math.round(performance.now() - indexStarted) }));
  return { keys, words, seedMs };
}

function queries(keys: string[], words: string[], seed: number) {
  const random = rng(seed);
  const key = () => keys[Math.floor(random() * keys.length)]!;
  const word = () => words[Math.floor(random() * words.length)]!;
  const typo = (w: string) => (w.length > 4 ? w.slice(0, 2) + w.slice(3) : `${w}x`);
  return {
    LOOKUP: () => `LOOKUP "${key()}"`,
    FUZZY: () => `FUZZY "${typo(word())} ${word()}" THRESHOLD 0.5 LIMIT 10`,
    SEARCH: () => `SEARCH "${word()} ${word()} ${word()}" FROM entities LIMIT 10 MIN_SIMILARITY 0.1`,
    TRAVERSE: () => `TRAVERSE FROM "${key()}" DEPTH 3 LIMIT 100`,
  };
}

async function time(iterations: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(20, iterations); i++) await run(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  return samples;
}

async function benchOne(backend: string, n: number) {
  let cleanup = async () => {};
  let env: Record<string, string>;
  if (backend === 'postgres') {
    const db = await freshPostgres('remgraph_bench_rem');
    env = { DATABASE_URL: db.url };
    cleanup = db.drop;
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'remgraph-bench-'));
    env = { DATA_DIR: join(dir, 'data') };
    cleanup = () => rm(dir, { recursive: true, force: true });
  }
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'warn', ...env });
  const app = await startApp(config, createLogger('warn'));
  try {
    const { keys, words } = await seed(app, n);
    const service = new RemService({ prisma: app.db.prisma, embedder: new HashedLexicalEmbedder() }, config.rem);
    const headers = { 'content-type': 'application/json', 'x-user-id': USER, 'x-tenant-id': TENANT };
    for (const [mode, make] of Object.entries(queries(keys, words, 7))) {
      let hits = 0;
      const viaService = await time(ITERATIONS, async () => {
        hits += (await service.query(ctx, make())).hits.length;
      });
      const http = await time(ITERATIONS, async () => {
        const body = JSON.stringify({ query: 'query ($q: String!) { remQuery(query: $q) { mode hits { key score path } } }', variables: { q: make() } });
        // A keep-alive socket the server closed while idle (during the in-process phase) is retried once.
        const res = await fetch(app.url, { method: 'POST', headers, body }).catch(() => fetch(app.url, { method: 'POST', headers, body }));
        const result = (await res.json()) as { errors?: unknown };
        if (result.errors) throw new Error(JSON.stringify(result.errors));
      });
      const meanHits = +(hits / (ITERATIONS + Math.min(20, ITERATIONS))).toFixed(1);
      console.log(JSON.stringify({ bench: 'rem', backend, entities: n, mode, via: 'service', meanHits, ...summarize(viaService) }));
      console.log(JSON.stringify({ bench: 'rem', backend, entities: n, mode, via: 'http', ...summarize(http) }));
    }
  } finally {
    await app.stop();
    await cleanup();
  }
}

for (const n of SIZES) {
  for (const backend of BACKENDS) await benchOne(backend, n);
}
process.exit(0);
