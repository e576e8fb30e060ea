import type { Database } from './database.js';

/** No row has it: each read below finds nothing and changes nothing. */
const NO_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Pays at start-up, before the server listens, what a server's first turn would otherwise pay on a
 * user's request: Prisma's client starting its query compiler (WebAssembly, on this thread: about
 * 100-150 ms the first time, blocking every other request meanwhile), a plan for each kind of
 * statement a turn sends, and the database reading the catalog entries of the tables a turn
 * touches (on PGlite, each in its WebAssembly compiled on first use). Reads only, by a key no row
 * has. Resolves with how long it took.
 */
export async function warmUp(db: Database): Promise<number> {
  const started = performance.now();
  const { prisma } = db;
  await prisma.$transaction(async (tx) => {
    await tx.session.findUnique({ where: { id: NO_ID } });
    await tx.message.findFirst({ where: { sessionId: NO_ID }, orderBy: { seq: 'desc' } });
  });
  await Promise.all([
    prisma.turn.findUnique({ where: { id: NO_ID } }),
    prisma.turnEventChunk.findFirst({ where: { turnId: NO_ID } }),
    prisma.llmCall.findFirst({ where: { turnId: NO_ID } }),
    prisma.quotaStart.findFirst({ where: { userId: NO_ID } }),
    prisma.agent.findFirst({ where: { name: NO_ID } }),
  ]);
  return performance.now() - started;
}
