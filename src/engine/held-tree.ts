import type { Turn } from '../db/generated/client.js';
import { ACTIVE_STATUSES_SQL } from '../events/turn-status-sql.js';
import type { EngineDeps } from './engine-deps.js';
import { CheckpointError, readCheckpoint, requestContext } from './run-state.js';
import { finishIdleTurn, type RunResult, type TurnRun } from './turn-run.js';

/**
 * A turn tree this process holds: it runs the tree's turns and numbers their events, and it is
 * what continues the tree's paused turns (decisions announced, turns resumed, paused turns
 * cancelled, turns of a dead holder interrupted). The supervisor owns its trees and calls these
 * under the tree's lock; a run the tree starts goes back to the supervisor through `start`.
 */
export class HeldTree {
  /** Every turn of the tree open in the hub. */
  readonly turnIds: Set<string>;
  readonly runs = new Set<{ run: TurnRun; done: Promise<RunResult> }>();
  readonly controller = new AbortController();
  cancelled = false;
  /** Child turns started in the tree so far (MAX_CHILD_TURNS). */
  childTurns: number;
  /** An ephemeral tree (see EPHEMERAL_TURN_RETENTION_MS). */
  readonly ephemeral: boolean;
  /** The root's outcome let go of the tree in the database already. */
  released = false;

  constructor(
    private readonly deps: EngineDeps,
    readonly rootId: string,
    /** The tree's turns open in the hub, root first. */
    turns: Pick<Turn, 'id' | 'ephemeral'>[],
    /** Runs a turn of this tree in the background (Supervisor.launch). */
    private readonly start: (tree: HeldTree, run: TurnRun) => void,
  ) {
    this.turnIds = new Set(turns.map((t) => t.id));
    this.childTurns = turns.length - 1;
    this.ephemeral = turns[0]?.ephemeral ?? false;
  }

  /**
   * Writes an approval_result event for every decision in the tree not announced yet, in the order
   * they were taken. Only the process holding the tree does this, so each is announced once,
   * whichever process recorded the decision (and even if that process died right after).
   */
  async announceDecisions(): Promise<void> {
    const { prisma, hub } = this.deps;
    const decided = await prisma.approval.findMany({
      where: { turnId: { in: [...this.turnIds] }, status: { not: 'PENDING' }, announcedAt: null },
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
   * A turn whose checkpoint cannot be read ends ERROR with why, and what waited on it continues.
   */
  async resumeReady(): Promise<void> {
    const { prisma, store, agents, models, logger } = this.deps;
    const ready = await prisma.$queryRaw<{ id: string }[]>`
      SELECT t.id FROM turns t
      WHERE t.root_id = ${this.rootId}::uuid AND t.status = 'AWAITING_APPROVAL'
        AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = t.id AND a.announced_at IS NULL)
        AND NOT EXISTS (SELECT 1 FROM turns c WHERE c.parent_id = t.id AND c.status IN ${ACTIVE_STATUSES_SQL})
      ORDER BY t.depth DESC`;
    let failed = false;
    for (const { id } of ready) {
      const turn = await store.claimForResume(id);
      if (!turn) continue;
      try {
        const state = readCheckpoint(turn.checkpoint);
        const run: TurnRun = {
          turn,
          session: turn.session,
          agent: await agents.load(state.context, turn.agent, turn.agentVersion),
          model: models.resolve(turn.model),
          ctx: requestContext(state),
          state,
          signal: this.controller.signal,
          resolutions: await store.resolutionsFor(state),
        };
        this.start(this, run);
      } catch (error) {
        if (error instanceof CheckpointError) {
          logger.error({ turnId: id }, error.message);
          await finishIdleTurn(this.deps, turn, 'ERROR', { code: error.code, message: error.message });
          failed = true;
          continue;
        }
        logger.error({ err: error, turnId: id }, 'could not resume turn');
        await store.unclaim(id);
        throw error;
      }
    }
    // Its parent waited on the turn that failed: it continues with the child's error.
    if (failed) await this.resumeReady();
  }

  /** Rejects what the tree's paused turns wait for and ends them CANCELLED, deepest first. */
  async cancelPaused(): Promise<void> {
    const { prisma, pubsub } = this.deps;
    const ids = [...this.turnIds];
    const now = new Date();
    await prisma.approval.updateMany({
      where: { turnId: { in: ids }, status: 'PENDING' },
      data: { status: 'REJECTED', approved: false, reason: 'The turn was cancelled', decidedAt: now, announcedAt: now },
    });
    const paused = await prisma.turn.findMany({ where: { id: { in: ids }, status: 'AWAITING_APPROVAL' }, orderBy: { depth: 'desc' } });
    for (const turn of paused) await finishIdleTurn(this.deps, turn, 'CANCELLED', null);
    const root = paused.find((t) => t.id === this.rootId) ?? paused[0];
    if (root) pubsub.publish('approvals:changed', root.tenantId, { sessionId: root.sessionId, turnId: this.rootId });
  }

  /**
   * Ends INTERRUPTED the turns a holder that stopped left running (deepest first), rather than
   * replaying them: a half-streamed answer or a tool call in flight cannot be repeated safely.
   */
  async interruptOrphaned(): Promise<void> {
    const running = await this.deps.prisma.turn.findMany({ where: { rootId: this.rootId, status: 'RUNNING' }, orderBy: { depth: 'desc' } });
    for (const turn of running) {
      await finishIdleTurn(this.deps, turn, 'INTERRUPTED', { code: 'INTERRUPTED', message: 'The server running this turn stopped before it finished' });
    }
    if (running.length) this.deps.logger.warn({ turns: running.map((t) => t.id) }, 'interrupted turns whose server stopped');
  }
}
