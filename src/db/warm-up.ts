import type { Database } from './database.js';

/**
 * Starts Prisma's client before the server listens: its first operation loads and starts its query
 * compiler (WebAssembly, run on this thread), 100-150 ms during which no other request is served.
 * Without this the maintenance sweep's first read paid it right after the server listened, or a
 * user's first request that goes through Prisma. One interactive transaction reading nothing, so
 * that the transaction path is ready too. Resolves with how long it took.
 */
export async function warmUp(db: Database): Promise<number> {
  const started = performance.now();
  await db.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 1`);
  return performance.now() - started;
}
