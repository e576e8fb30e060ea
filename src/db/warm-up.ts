import type { PrismaClient } from './generated/client.js';

/** Longer than any database takes to open: a failure to open ends the wait anyway. */
const OPEN_WAIT_MS = 10 * 60_000;

/**
 * Starts Prisma's client before the server listens: its first operation loads and starts its query
 * compiler (WebAssembly, run on this thread), 100-150 ms during which no other request is served.
 * Without this the maintenance sweep's first read paid it right after the server listened, or a
 * user's first request that goes through Prisma. One interactive transaction reading nothing, so
 * that the transaction path is ready too. Resolves with how long it took. A server starts it while
 * the database opens (openDatabase's `warmUp`): PGlite's worker takes its statements once open,
 * and the compiler's loading, on this thread, is done by then.
 */
export async function warmUp(db: { prisma: PrismaClient }): Promise<number> {
  const started = performance.now();
  // Waiting for as long as the database takes to open (Prisma gives up starting a transaction after 2 s by default).
  await db.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 1`, { maxWait: OPEN_WAIT_MS });
  return performance.now() - started;
}
