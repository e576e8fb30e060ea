import type { PrismaClient } from '../db/generated/client.js';
import { ACTIVE_STATUSES_SQL } from '../events/turn-status-sql.js';

/** A holder is not given up on sooner than this, however short the heartbeat: a busy process may miss a few. */
const MIN_SILENCE_MS = 2000;

/**
 * Since when a holder must have been silent to be taken for stopped: three missed heartbeats (and
 * at least 2 s). A process known dead (see ProcessLiveness) is taken over at once.
 */
export function staleBefore(heartbeatMs: number): Date {
  return new Date(Date.now() - Math.max(3 * heartbeatMs, MIN_SILENCE_MS));
}

/**
 * Trees a process left unfinished between recording a decision and acting on it (it died in
 * between): paused trees nobody holds with decisions to announce or turns ready to resume.
 */
export async function unfinishedRoots(prisma: PrismaClient): Promise<string[]> {
  const roots = await prisma.$queryRaw<{ root_id: string }[]>`
    SELECT DISTINCT t.root_id FROM turns t JOIN turns r ON r.id = t.root_id
    WHERE r.runner IS NULL AND t.status = 'AWAITING_APPROVAL' AND (
      EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = t.id AND a.status <> 'PENDING' AND a.announced_at IS NULL)
      OR (NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = t.id AND a.status = 'PENDING')
          AND NOT EXISTS (SELECT 1 FROM turns c WHERE c.parent_id = t.id AND c.status IN ${ACTIVE_STATUSES_SQL})))`;
  return roots.map((r) => r.root_id);
}
