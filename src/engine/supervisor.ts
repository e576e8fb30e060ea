import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { Turn } from '../db/generated/client.js';
import type { Topics } from '../events/pubsub.js';
import { LATE_FOLLOWERS_MS, RecentlyEnded } from '../events/recently-ended.js';
import type { EngineDeps } from './engine-deps.js';
import { dropEphemeral } from './ephemeral-turns.js';
import type { StopReason } from './agent-loop.js';
import { delegate } from './delegation.js';
import { staleBefore, unfinishedRoots } from './recovery.js';
import { HeldTree } from './held-tree.js';
import { executeRun, type RunResult, type TurnRun } from './turn-run.js';

/**
 * Owns the life of turns on this process: launching runs, holding their trees (the database lease
 * and the hub's numbering), cancelling, heartbeats, and letting go when nothing is left to run.
 * Everything that changes a tree (a decision announced, a turn resumed, a cancel, letting go) runs
 * under that tree's lock, so a process never races itself; the database lease keeps other processes
 * out. What is done to one tree (resuming, cancelling its paused turns) is the HeldTree's.
 */
export class Supervisor {
  private readonly trees = new Map<string, HeldTree>();
  /** Top-level turns that ended here lately, as their late followers need them: see `endedLately`. */
  private readonly endedTurns = new RecentlyEnded<Turn>(LATE_FOLLOWERS_MS, 1000);
  /** Sessions deleted lately: a turn of one that ends after the deletion (cancelled by it) is not kept. */
  private readonly deletedSessions = new RecentlyEnded<true>(LATE_FOLLOWERS_MS, 10_000);
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly stops: (() => void)[] = [];
  private readonly heartbeat: NodeJS.Timeout;

  constructor(readonly deps: EngineDeps) {
    this.follow('turn:cancel', ({ rootId }) => {
      if (this.trees.has(rootId)) void this.cancelTree(rootId).catch((error) => this.failed(error, rootId, 'remote cancel failed'));
    });
    this.follow('tree:poke', ({ rootId, holder }) => {
      if (holder === this.processId) void this.afterDecision(rootId).catch((error) => this.failed(error, rootId, 'could not continue a tree after a decision'));
    });
    this.follow('session:deleted', ({ sessionId }) => {
      this.deletedSessions.set(sessionId, true);
      this.forgetEnded(sessionId);
      for (const tree of this.trees.values())
        if ([...tree.runs].some((r) => r.run.turn.sessionId === sessionId)) tree.controller.abort('cancelled' satisfies StopReason);
    });
    this.heartbeat = setInterval(() => void this.beat(), deps.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  get processId(): string {
    return this.deps.lease.processId;
  }

  /** Starts holding the tree of a new top-level turn (whose row already names this process). */
  adopt(turn: Turn): HeldTree {
    const tree = this.newTree(turn.id, [turn]);
    this.deps.hub.open(turn, 0);
    this.trees.set(turn.id, tree);
    return tree;
  }

  private newTree(rootId: string, turns: Pick<Turn, 'id' | 'ephemeral'>[]): HeldTree {
    return new HeldTree(this.deps, rootId, turns, (tree, run) => this.launch(tree, run));
  }

  /**
   * A top-level turn this process is running, as stored when it started (status RUNNING): while
   * it runs, its events are numbered in this process's hub, whatever its row says by then.
   */
  running(turnId: string): Turn | undefined {
    for (const { run } of this.trees.get(turnId)?.runs ?? []) if (run.turn.id === turnId) return run.turn;
    return undefined;
  }

  /**
   * A top-level turn that ended on this process lately, with its final status and last seq (its
   * other columns as stored when it started): enough to follow it, whose events the hub still has.
   */
  endedLately(turnId: string): Turn | undefined {
    return this.endedTurns.get(turnId);
  }

  /** Forgets what is kept for late followers of a deleted session's turns. */
  private forgetEnded(sessionId: string) {
    this.endedTurns.deleteWhere((turn) => turn.sessionId === sessionId);
    this.deps.hub.forgetSession(sessionId);
  }

  /** Takes a tree that is free (or, with `staleBefore`, whose holder stopped; see TreeLease.acquire) into this process. */
  private async hold(rootId: string, stale?: Date): Promise<HeldTree | undefined> {
    const held = this.trees.get(rootId);
    if (held) return held;
    if (!(await this.deps.lease.acquire(rootId, stale))) return undefined;
    const turns = await this.deps.lease.turns(rootId);
    for (const turn of turns) this.deps.hub.open(turn, turn.lastSeq);
    const tree = this.newTree(rootId, turns);
    this.trees.set(rootId, tree);
    return tree;
  }

  /** Runs `work` alone with respect to everything else this process does to the tree. */
  private locked<T>(rootId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(rootId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => {});
    this.locks.set(rootId, settled);
    void settled.then(() => {
      if (this.locks.get(rootId) === settled) this.locks.delete(rootId);
    });
    return next;
  }

  /** Runs a turn in the background; when it ends, its paused parent may continue and the tree may be let go. */
  launch(tree: HeldTree, run: TurnRun, prepare?: () => Promise<void>): void {
    const done = (async () => {
      // The request that started the run (sendMessage, a decision) answers first: the run's start
      // (its context, the model request) would otherwise run in the same microtask queue as the
      // answer's serialisation and hold it back by about a millisecond, and a client that is told
      // later subscribes later.
      await afterPendingIo();
      if (prepare) await prepare();
      return executeRun(this.deps, run, (parent, request) => delegate(this.deps, tree, parent, request));
    })().catch((error): RunResult => {
      this.failed(error, tree.rootId, 'turn could not run');
      return { status: 'ERROR', content: null, usage: run.state.usage, at: new Date() };
    });
    const entry = { run, done };
    tree.runs.add(entry);
    void done
      .then(async (result) => {
        const treeEnded = run.turn.parentId === null && result.status !== 'AWAITING_APPROVAL';
        // Followers find it here from the moment it stops running here, once its final event is out.
        // An ephemeral tree may be dropped as soon as it ends: its followers read what is left of it.
        const lastSeq = this.deps.hub.finalSeq(run.turn.id);
        const deleted = this.deletedSessions.get(run.session.id);
        if (treeEnded && !tree.ephemeral && !deleted && lastSeq !== undefined)
          this.endedTurns.set(run.turn.id, { ...run.turn, status: result.status, lastSeq, finishedAt: result.at });
        tree.runs.delete(entry);
        if (treeEnded) tree.released = true;
        this.deps.pubsub.publish('session:updated', run.session.id, { session: { ...run.session, updatedAt: result.at }, deleted: false });
        if (result.status === 'AWAITING_APPROVAL')
          this.deps.pubsub.publish('approvals:changed', run.session.tenantId, { sessionId: run.session.id, turnId: run.turn.id });
        await this.locked(tree.rootId, async () => {
          // A run that ended may unblock a paused turn of its tree: a child that finished after its
          // own pause lets its parent continue, and a parent that paused on children which already
          // finished meanwhile (a decision came in while a sibling still ran) continues at once.
          if (!treeEnded && !tree.cancelled) await tree.resumeReady();
          await this.letGo(tree);
          // The hub kept the events of a turn its session's deletion cancelled: they go too.
          if (deleted || this.deletedSessions.get(run.session.id)) this.forgetEnded(run.session.id);
          if (treeEnded) await this.ended(tree);
        });
      })
      .catch((error) => this.failed(error, tree.rootId, 'turn could not be finished'));
  }

  /**
   * After a decision was recorded: announces it in the log and resumes what it unblocked, here if
   * this process can hold the tree, else on the process that holds it.
   */
  async afterDecision(rootId: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const handled = await this.locked(rootId, async () => {
        const tree = await this.hold(rootId);
        if (!tree) return false;
        if (!tree.cancelled) {
          await tree.announceDecisions();
          await tree.resumeReady();
        }
        await this.letGo(tree);
        return true;
      });
      if (handled) return;
      // A holder that died (e.g. killed while the turn paused, before letting go) would never hear a poke.
      if (await this.takeOver(rootId)) return;
      const holder = await this.deps.lease.holder(rootId);
      if (holder) return this.deps.pubsub.publish('tree:poke', { rootId, holder });
      // Let go of between our attempt and the question: try again.
    }
  }

  /**
   * Cancels a tree held here or free to hold: stops its runs, rejects what its paused turns wait
   * for and ends them CANCELLED. Returns false when another process holds it.
   */
  async cancelTree(rootId: string): Promise<boolean> {
    return this.locked(rootId, async () => {
      const tree = await this.hold(rootId);
      if (!tree) return false;
      tree.cancelled = true;
      tree.controller.abort('cancelled' satisfies StopReason);
      await Promise.all([...tree.runs].map((r) => r.done));
      await tree.cancelPaused();
      await this.letGo(tree);
      await this.ended(tree);
      return true;
    });
  }

  /**
   * Recovery work, at start-up and then periodically: takes over the trees of processes that
   * stopped, finishes what a process left undone after a decision (see recovery.ts), drops
   * ephemeral turns kept long enough.
   */
  async sweep(): Promise<void> {
    const stale = staleBefore(this.deps.settings.heartbeatMs);
    for (const rootId of await this.deps.lease.orphans(stale)) await this.takeOver(rootId, stale);
    for (const rootId of await unfinishedRoots(this.deps.prisma)) await this.afterDecision(rootId);
    await dropEphemeral(this.deps.prisma, { endedBefore: new Date(Date.now() - this.deps.settings.ephemeralRetentionMs) });
  }

  /** Stops every run of this process (they end INTERRUPTED), stores their events and lets go of every tree. */
  async shutdown(): Promise<void> {
    clearInterval(this.heartbeat);
    for (const stop of this.stops) stop();
    const trees = [...this.trees.values()];
    for (const tree of trees) tree.controller.abort('shutdown' satisfies StopReason);
    await Promise.all(trees.flatMap((tree) => [...tree.runs].map((r) => r.done)));
    await Promise.all(trees.map((tree) => this.locked(tree.rootId, () => this.letGo(tree))));
    await this.deps.hub.drain([]);
  }

  /**
   * Takes a tree from a holder that stopped; false when the tree is held here or by a live process,
   * or free. Its running turns end INTERRUPTED; decisions taken meanwhile are announced, and the
   * paused turns they (or the interrupted turns) unblock continue.
   */
  private async takeOver(rootId: string, stale = staleBefore(this.deps.settings.heartbeatMs)): Promise<boolean> {
    return this.locked(rootId, async () => {
      // Held here: not an orphan, whatever its row says (a beat may be late).
      if (this.trees.has(rootId)) return false;
      const tree = await this.hold(rootId, stale);
      if (!tree) return false;
      await tree.interruptOrphaned();
      await tree.announceDecisions();
      await tree.resumeReady();
      await this.letGo(tree);
      return true;
    });
  }

  /** Lets go of a tree with nothing left to run here: its events stored, its turns closed, the lease released. */
  private async letGo(tree: HeldTree): Promise<void> {
    if (tree.runs.size || this.trees.get(tree.rootId) !== tree) return;
    await this.deps.hub.drain(tree.turnIds);
    this.deps.hub.close(tree.turnIds);
    this.trees.delete(tree.rootId);
    if (!tree.released) await this.deps.lease.release(tree.rootId);
  }

  /**
   * After a tree's root ended and the tree was let go (everything of it stored and delivered to live
   * subscribers): an ephemeral tree is kept for late subscribers until the sweep drops it, or goes
   * at once without retention.
   */
  private async ended(tree: HeldTree) {
    if (tree.ephemeral && this.deps.settings.ephemeralRetentionMs === 0) await dropEphemeral(this.deps.prisma, { rootId: tree.rootId });
  }

  private follow<K extends 'turn:cancel' | 'tree:poke' | 'session:deleted'>(topic: K, handle: (payload: Topics[K][0]) => void) {
    const iterator = (this.deps.pubsub.subscribe as (topic: K) => AsyncIterableIterator<Topics[K][0]>)(topic);
    void (async () => {
      for await (const payload of iterator) handle(payload);
    })();
    this.stops.push(() => void iterator.return?.());
  }

  /**
   * Marks this process's trees alive. A tree taken over meanwhile (this process missed beats long
   * enough to look dead) is stopped here: the new holder has interrupted its turns, and this
   * process's writes to them are fenced off anyway. A tree whose root is gone was deleted with its
   * session: its runs are cancelled, as the deletion's own notice does (this beat may come first),
   * and end here with their final events.
   */
  private async beat() {
    const held = new Map(this.trees);
    try {
      const { takenOver, gone } = await this.deps.lease.beat([...held.keys()]);
      // Let go of meanwhile (and perhaps taken again since): not lost.
      const stillHeld = (rootId: string) => {
        const tree = this.trees.get(rootId);
        return tree && tree === held.get(rootId) ? tree : undefined;
      };
      for (const rootId of gone) stillHeld(rootId)?.controller.abort('cancelled' satisfies StopReason);
      for (const rootId of takenOver) {
        const tree = stillHeld(rootId);
        if (!tree) continue;
        this.deps.logger.warn({ rootId }, 'another process took over a turn tree this process held; stopping its runs here');
        tree.controller.abort('shutdown' satisfies StopReason);
        this.deps.hub.close(tree.turnIds);
        this.trees.delete(rootId);
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'heartbeat failed');
    }
  }

  private failed(error: unknown, rootId: string, message: string) {
    this.deps.logger.error({ err: error, rootId }, message);
  }
}
