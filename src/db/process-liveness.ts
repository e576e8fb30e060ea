import { Prisma } from './generated/client.js';

/**
 * Whether a process named in the database (a turn tree's `runner`) is still running, known at once
 * instead of after its heartbeat has gone stale: a tree held by a process that was killed can be
 * taken over as soon as someone needs it.
 */
export interface ProcessLiveness {
  /** SQL that is true when the process whose id `processId` evaluates to has certainly stopped. */
  gone(processId: Prisma.Sql): Prisma.Sql;
}

/** PGlite: one process at a time owns the database, so every process but this one has stopped. */
export function embeddedLiveness(self: string): ProcessLiveness {
  return { gone: (processId) => Prisma.sql`(${processId} <> ${self})` };
}
