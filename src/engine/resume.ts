import { ACTIVE_STATUSES_SQL } from '../events/turn-status-sql.js';
import { requestContext, type RunState } from './run-state.js';
import type { HeldTree, TreeHost } from './held-tree.js';
import { finishIdleTurn, type TurnRun } from './turn-run.js';

/**
 * Writes an approval_result event for every decision in the tree not announced yet, in the order
 * they were taken. Only the process holding the tree does this, so each is announced once,
 * whichever process recorded the decision (and even if that process died right after).
 */
export async function announceDecisions(sup: TreeHost, tree: HeldTree): Promise<void> {
  const { prisma, hub } = sup.deps;
  const decided = await prisma.approval.findMany({
    where: { turnId: { in: [...tree.turnIds] }, status: { not: 'PENDING' }, announcedAt: null },
    orderBy: { decidedAt: 'asc' },
  });
  for (const approval of decided) {
    await hub.commit(
      approval.turnId,
      [{ type: 'approval_result', approvalId: approval.id, approved: approval.approved === true, reason: approval.reason, decidedBy: approval.decidedBy }],
      (tx) => tx.approval.update({ where: { id: approval.id }, data: { announcedAt: new Date() } }),
    );
  }
}

/**
 * Resumes the tree's paused turns that no longer wait on anything (every decision in and announced,
 * no child still active), deepest first: a resumed child runs to its end before its parent continues.
 * A decision recorded after this holder's announceDecisions is left to the decision's own follow-up
 * (afterDecision), which announces it first: the log never shows a turn resumed before its decision.
 */
export async function resumeReady(sup: TreeHost, tree: HeldTree): Promise<void> {
  const { prisma, store, agents, models, logger } = sup.deps;
  const ready = await prisma.$queryRaw<{ id: string }[]>`
    SELECT t.id FROM turns t
    WHERE t.root_id = ${tree.rootId}::uuid AND t.status = 'AWAITING_APPROVAL'
      AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = t.id AND a.announced_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM turns c WHERE c.parent_id = t.id AND c.status IN ${ACTIVE_STATUSES_SQL})
    ORDER BY t.depth DESC`;
  for (const { id } of ready) {
    const turn = await store.claimForResume(id);
    if (!turn) continue;
    try {
      const state = turn.checkpoint as unknown as RunState;
      const run: TurnRun = {
        turn,
        session: turn.session,
        agent: await agents.load(state.context, turn.agent, turn.agentVersion),
        model: models.resolve(turn.model),
        ctx: requestContext(state),
        state,
        signal: tree.controller.signal,
        resolutions: await store.resolutionsFor(state),
      };
      sup.launch(tree, run);
    } catch (error) {
      logger.error({ err: error, turnId: id }, 'could not resume turn');
      await store.unclaim(id);
      throw error;
    }
  }
}

/** Rejects what the tree's paused turns wait for and ends them CANCELLED, deepest first. */
export async function cancelPaused(sup: TreeHost, tree: HeldTree): Promise<void> {
  const { prisma, pubsub } = sup.deps;
  const ids = [...tree.turnIds];
  const now = new Date();
  await prisma.approval.updateMany({
    where: { turnId: { in: ids }, status: 'PENDING' },
    data: { status: 'REJECTED', approved: false, reason: 'The turn was cancelled', decidedAt: now, announcedAt: now },
  });
  const paused = await prisma.turn.findMany({ where: { id: { in: ids }, status: 'AWAITING_APPROVAL' }, orderBy: { depth: 'desc' } });
  for (const turn of paused) await finishIdleTurn(sup.deps, turn, 'CANCELLED', null);
  const root = paused.find((t) => t.id === tree.rootId) ?? paused[0];
  if (root) pubsub.publish('approvals:changed', root.tenantId, { sessionId: root.sessionId, turnId: tree.rootId });
}
