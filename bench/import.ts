/**
 * Bulk import (`remgraph import`): generated entities with 384-d embeddings (the offline
 * hashed-lexical provider) imported into a fresh database per backend, end to end: reading and
 * validating the JSONL, embedding, writing, and building the vector index (an import this large
 * drops it and builds it once). Prints one JSON line per backend: rows/s over the whole import,
 * the seconds spent loading and building the index, and this process's CPU seconds while loading
 * (PGlite's worker thread included): on a shared machine a steadier figure than the wall clock.
 * Then, in the same run, the physical floor (bench/import-floor.ts: the same rows by `COPY` into a
 * plain table plus one HNSW build) and the ratio import ÷ floor (targets of issue 41: ≤ 1.5× on
 * PostgreSQL, ≤ 2× on PGlite).
 *
 *   npx tsx bench/import.ts
 *   BENCH_ROWS=20000 BENCH_BACKENDS=postgres npx tsx bench/import.ts
 *   REMGRAPH_BENCH_PROFILE=1 …    # also prints the import process's top functions by CPU time
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import { userContext } from '../src/auth/agent-context.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { applyMigrations } from '../src/db/migrations.js';
import { createEmbeddingProvider } from '../src/rem/embeddings/create.js';
import { importMemory } from '../src/rem/import/import-memory.js';
import { fileSource } from '../src/rem/import/jsonl.js';
import { vectorLiteral } from '../src/rem/embeddings/provider.js';
import { embeddingText } from '../src/rem/memory/vectors.js';
import { copyRow } from '../src/db/copy-from-stdin.js';
import { pgliteFloor, postgresFloor } from './import-floor.js';
import { freshPostgres } from './support.js';

if (process.argv.includes('--help')) {
  console.log('Usage: [BENCH_ROWS=100000] [BENCH_BACKENDS=pglite,postgres] [REMGRAPH_BENCH_PROFILE=1] npx tsx bench/import.ts');
  process.exit(0);
}

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',');
const WORDS = 'invoice contract travel policy flight hotel budget approval team project roadmap release customer support billing account'.split(' ');

function entity(i: number) {
  const pick = (n: number) => WORDS[(i * 7 + n * 13) % WORDS.length]!;
  return {
    key: `entity-${i}`,
    name: `Entity ${i}`,
    entityType: 'topic',
    content: `Entity ${i} is about ${pick(1)} and ${pick(2)} for the ${pick(3)} of team ${i % 97}.`,
    tags: [pick(4)],
    graphEdges: [{ dst: `entity-${(i + 1) % ROWS}`, relType: 'related_to' }],
  };
}

/**
 * The floor's rows: each entity's key, text, vector (embedded here, before any clock starts) and the rest as jsonb. The
 * vector is that of the text the import embeds (name and content): the HNSW build's cost depends on the vectors, and one of
 * the content alone cost the build about a quarter less CPU than the vectors the import indexes.
 */
async function floorLines(): Promise<string[]> {
  const embedder = createEmbeddingProvider(loadConfig({ ...process.env, EMBEDDING_DIMENSION: '384' }).rem.embedding);
  const lines: string[] = [];
  for (let at = 0; at < ROWS; at += 1000) {
    const batch = Array.from({ length: Math.min(1000, ROWS - at) }, (_, i) => entity(at + i));
    const vectors = await embedder.embed(batch.map((e) => embeddingText(e)));
    batch.forEach(({ key, content, ...data }, i) => lines.push(copyRow([key, content, vectorLiteral(vectors[i]!), JSON.stringify(data)])));
  }
  return lines;
}

async function run(backend: string, file: string, lines: string[]) {
  const pg = backend === 'postgres' ? await freshPostgres('remgraph_import_bench') : null;
  const dataDir = pg ? '' : await mkdtemp(join(tmpdir(), 'remgraph-import-bench-'));
  const config = loadConfig({ ...process.env, EMBEDDING_DIMENSION: '384', ...(pg ? { DATABASE_URL: pg.url } : { DATA_DIR: dataDir }) });
  const db = await openDatabase(config.database);
  const profiler = process.env.REMGRAPH_BENCH_PROFILE ? new Session() : null;
  try {
    await applyMigrations(db);
    const embedder = createEmbeddingProvider(config.rem.embedding);
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const started = performance.now();
    let indexingAt = 0;
    let loadCpuS = 0;
    const cpuAtStart = process.cpuUsage();
    const result = await importMemory(
      { prisma: db.prisma, sql: db.sql, backend: db.backend, embedder },
      { ...userContext('bench', 'bench-user'), isAdmin: true },
      await fileSource(file),
      config.rem.import,
      {
        onProgress: (p) => {
          if (p.stage !== 'indexing') return;
          indexingAt = performance.now();
          const cpu = process.cpuUsage(cpuAtStart);
          loadCpuS = (cpu.user + cpu.system) / 1e6;
        },
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const loadS = ((indexingAt || performance.now()) - started) / 1000;
    const [counted] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM embeddings WHERE dimension = 384`);
    console.log(
      JSON.stringify({
        bench: 'import',
        backend,
        rows: result.rows,
        vectors: counted?.n,
        rowsPerS: Math.round(result.rows / seconds),
        totalS: +seconds.toFixed(1),
        loadS: +loadS.toFixed(1),
        indexS: +(seconds - loadS).toFixed(1),
        loadCpuS: +loadCpuS.toFixed(1),
        reindexed: result.reindexed,
      }),
    );
    const floor = pg ? await postgresFloor(pg.url, lines) : await pgliteFloor(lines);
    console.log(
      JSON.stringify({
        bench: 'import-floor',
        backend,
        rows: lines.length,
        copyS: +floor.copyS.toFixed(1),
        indexS: +floor.indexS.toFixed(1),
        totalS: +floor.totalS.toFixed(1),
        importOverFloor: +(seconds / floor.totalS).toFixed(2),
        target: backend === 'postgres' ? 1.5 : 2,
      }),
    );
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      printTop(profile);
    }
  } finally {
    await db.close();
    await pg?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

/** The main thread's top functions by self time (PGlite's worker thread is not in this profile). */
function printTop(profile: {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  (profile.samples ?? []).forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
  });
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
}

const dir = await mkdtemp(join(tmpdir(), 'remgraph-import-bench-'));
const file = join(dir, 'entities.jsonl');
await writeFile(file, `${Array.from({ length: ROWS }, (_, i) => JSON.stringify({ entity: entity(i) })).join('\n')}\n`);
const lines = await floorLines();
try {
  for (const backend of BACKENDS) await run(backend, file, lines);
} finally {
  await rm(dir, { recursive: true, force: true });
}
