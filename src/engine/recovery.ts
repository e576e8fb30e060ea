import { ACTIVE_STATUSES_SQL } from '../events/turn-status-sql.js';
import type { TreeHost } from './held-tree.js';
import { announceDecisions, resumeReady } from './resume.js';
import { finishIdleTurn } from './turn-run.js';

/** A holder is not given up on sooner than this, however short the heartbeat: a busy process may miss a few. */
const MIN_SILENCE_MS = 2000;

/**
 * Takes over trees whose process stopped: known at once when it died (see ProcessLiveness), else
 * once it missed three heartbeats (and at least 2 s).
 */
export async function recoverOrphans(sup: TreeHost): Promise<void> {
  const stale = staleBefore(sup);
  for (const rootId of await sup.deps.lease.orphans(stale)) await takeOver(sup, rootId, stale);
}

/**
 * Takes a tree from a holder that stopped (see recoverOrphans); false when the tree is held here or
 * by a live process, or free. Its running turns end INTERRUPTED rather than being replayed: a
 * half-streamed answer or a tool call in flight cannot be repeated safely. Decisions taken
 * meanwhile are announced, and the paused turns they (or the interrupted turns) unblock continue.
 */
export async function takeOver(sup: TreeHost, rootId: string, stale = staleBefore(sup)): Promise<boolean> {
  const { prisma, logger } = sup.deps;
  return sup.locked(rootId, async () => {
    // Held here: not an orphan, whatever its row says (a beat may be late).
    if (sup.tree(rootId)) return false;
    const tree = await sup.hold(rootId, stale);
    if (!tree) return false;
    const running = await prisma.turn.findMany({ where: { rootId, status: 'RUNNING' }, orderBy: { depth: 'desc' } });
    for (const turn of running) {
      await finishIdleTurn(sup.deps, turn, 'INTERRUPTED', { code: 'INTERRUPTED', message: 'The server running this turn stopped before it finished' });
    }
    if (running.length) logger.warn({ turns: running.map((t) => t.id) }, 'interrupted turns whose server stopped');
    await announceDecisions(sup, tree);
    await resumeReady(sup, tree);
    await sup.letGo(tree);
    return true;
  });
}

function staleBefore(sup: TreeHost): Date {
  return new Date(Date.now() - Math.max(3 * sup.deps.settings.heartbeatMs, MIN_SILENCE_MS));
}

/**
 * Finishes what a process left undone between recording a decision and acting on it (it died in
 * between): paused trees nobody holds with decisions to announce or turns ready to resume.
 */
export async function retryUnfinished(sup: TreeHost): Promise<void> {
  const roots = await sup.deps.prisma.$queryRaw<{ root_id: string }[]>`
    SELECT DISTINCT t.root_id FROM turns t JOIN turns r ON r.id = t.root_id
    WHERE r.runner IS NULL AND t.status = 'AWAITING_APPROVAL' AND (
      EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = t.id AND a.status <> 'PENDING' AND a.announced_at IS NULL)
      OR (NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = t.id AND a.status = 'PENDING')
          AND NOT EXISTS (SELECT 1 FROM turns c WHERE c.parent_id = t.id AND c.status IN ${ACTIVE_STATUSES_SQL})))`;
  for (const { root_id } of roots) await sup.afterDecision(root_id);
}
