/**
 * The HNSW index of one vector dimension (see the rem_custom migration) around a bulk import: every
 * vector written while it exists is inserted into its graph at once, which costs milliseconds per
 * row; one build after the load, in memory, costs far less. Meanwhile SEARCH compares vectors
 * exactly (slower, still correct).
 */
import type { Backend } from '../../db/database.js';
import type { PrismaClient } from '../../db/generated/client.js';

/** The dimensions that have an HNSW index (the migration creates one per dimension). */
const INDEXED_DIMENSIONS = [384, 1536];

const indexName = (dimension: number) => `embeddings_hnsw_${dimension}_custom`;

/** The index's definition, exactly as the migration creates it. */
const definition = (dimension: number) =>
  `CREATE INDEX IF NOT EXISTS "${indexName(dimension)}" ON "embeddings" USING hnsw (("embedding"::vector(${dimension})) vector_cosine_ops) WHERE "dimension" = ${dimension}`;

/** Memory for one build in a single pass (the graph of 100k 384-d vectors takes about 200 MB). */
const BUILD_MEMORY: Record<Backend, string> = { postgres: '2GB', pglite: '512MB' };

/**
 * Whether an import of `rows` rows should drop the index and build it again afterwards: when it
 * brings more rows than `threshold` and more than the index already holds (rebuilding a large index
 * for a comparatively small import costs more than maintaining it).
 */
export async function shouldRebuild(prisma: PrismaClient, dimension: number, rows: number, threshold: number): Promise<boolean> {
  if (!INDEXED_DIMENSIONS.includes(dimension) || rows <= threshold) return false;
  const [indexed] = await prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "embeddings" WHERE "dimension" = $1`, dimension);
  return rows > (indexed?.n ?? 0);
}

export async function dropVectorIndex(prisma: PrismaClient, dimension: number): Promise<void> {
  await prisma.$executeRawUnsafe(`DROP INDEX IF EXISTS "${indexName(dimension)}"`);
}

/** Builds the index if it is missing (dropped by this import, or by one that was stopped), in one pass in memory. */
export async function ensureVectorIndex(prisma: PrismaClient, backend: Backend, dimension: number): Promise<void> {
  if (!INDEXED_DIMENSIONS.includes(dimension)) return;
  await prisma.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL maintenance_work_mem = '${BUILD_MEMORY[backend]}'`);
      if (backend === 'postgres') await tx.$executeRawUnsafe(`SET LOCAL max_parallel_maintenance_workers = 2`);
      await tx.$executeRawUnsafe(definition(dimension));
    },
    // A build of millions of vectors takes a while; nothing else waits on this transaction's client.
    { timeout: 24 * 3600_000, maxWait: 60_000 },
  );
}
