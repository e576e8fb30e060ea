import { Prisma, type PrismaClient } from '../db/generated/client.js';

/**
 * Deletes ended ephemeral turn trees (their events and model calls go with them) that ended
 * before `endedBefore`, or the one tree `rootId`, and a session that was only theirs.
 */
export async function dropEphemeral(prisma: PrismaClient, filter: { rootId: string } | { endedBefore: Date }): Promise<number> {
  const which = 'rootId' in filter ? Prisma.sql`t.id = ${filter.rootId}::uuid` : Prisma.sql`t.finished_at < ${filter.endedBefore}`;
  // One statement: the session goes with its last turn, never a moment later.
  const [row] = await prisma.$queryRaw<{ count: number }[]>`
    WITH dropped AS (
      DELETE FROM turns t WHERE t.ephemeral AND t.parent_id IS NULL AND t.finished_at IS NOT NULL AND t.runner IS NULL AND ${which}
      RETURNING t.id, t.session_id
    ),
    emptied AS (
      DELETE FROM sessions s WHERE s.id IN (SELECT session_id FROM dropped)
        AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)
        AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND t.id NOT IN (SELECT id FROM dropped))
    )
    SELECT count(*)::int AS count FROM dropped`;
  return row?.count ?? 0;
}
