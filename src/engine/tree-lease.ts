import { Prisma, type PrismaClient } from '../db/generated/client.js';
import type { ProcessLiveness } from '../db/process-liveness.js';
import type { HubTurn } from '../events/event-hub.js';

/** A turn of a tree, with the last seq of its stored log (where numbering continues). */
export interface TreeTurn extends HubTurn {
  status: string;
  lastSeq: number;
  ephemeral: boolean;
}

/**
 * Who holds a turn tree. One process at a time runs a tree's turns and numbers their events; it is
 * recorded on the tree's root (`runner`, refreshed through `heartbeat_at`). A process takes a tree
 * that nobody holds, or whose holder is gone (its process stopped, or it stopped beating), with one
 * conditional UPDATE, so exactly one of any number of competing processes gets it.
 */
export class TreeLease {
  constructor(
    private readonly prisma: PrismaClient,
    readonly processId: string,
    private readonly liveness: ProcessLiveness,
  ) {}

  /**
   * Takes the tree if it is free or already ours; with `staleBefore`, also from a holder whose
   * process stopped (known at once) or that stopped beating before then.
   */
  async acquire(rootId: string, staleBefore?: Date): Promise<boolean> {
    const orphaned = staleBefore ? Prisma.sql`OR heartbeat_at < ${staleBefore} OR ${this.holderGone()}` : Prisma.empty;
    const taken = await this.prisma.$executeRaw`
      UPDATE turns SET runner = ${this.processId}, heartbeat_at = now()
      WHERE id = ${rootId}::uuid AND (runner IS NULL OR runner = ${this.processId} ${orphaned})`;
    return taken > 0;
  }

  async release(rootId: string): Promise<void> {
    await this.prisma.$executeRaw`UPDATE turns SET runner = NULL WHERE id = ${rootId}::uuid AND runner = ${this.processId}`;
  }

  /** The process holding a tree, or null when it is free. */
  async holder(rootId: string): Promise<string | null> {
    const row = await this.prisma.turn.findUnique({ where: { id: rootId }, select: { runner: true } });
    return row?.runner ?? null;
  }

  /**
   * Keeps this process's trees from being taken as orphans; returns those another process took
   * over, and those whose root is gone (deleted with its session). A tree nobody holds is in
   * neither: its root's outcome let go of it (`runner` NULL) and this process is letting go of it
   * too, delivering its last events.
   */
  async beat(rootIds: string[]): Promise<{ takenOver: string[]; gone: string[] }> {
    if (rootIds.length === 0) return { takenOver: [], gone: [] };
    // The SELECT sees the roots as they were when the statement began; the UPDATE sees them as they
    // are (it waits for a change in progress, then skips a root that change deleted or gave to
    // another process). A root the SELECT shows held here but the UPDATE did not keep was changed
    // meanwhile (seen under load: the session's deletion committed while the beat waited on it):
    // held still, and the next beat sees which change it was. Taking it for a takeover closed the
    // turn without its final event, and its followers waited forever.
    const rows = await this.prisma.$queryRaw<{ id: string; held: boolean }[]>`
      WITH kept AS (UPDATE turns SET heartbeat_at = now() WHERE id = ANY(${rootIds}::uuid[]) AND runner = ${this.processId} RETURNING id)
      SELECT id::text AS id, (id IN (SELECT id FROM kept) OR runner IS NULL OR runner = ${this.processId}) AS held
      FROM turns WHERE id = ANY(${rootIds}::uuid[])`;
    const existing = new Map(rows.map((r) => [r.id, r.held]));
    return { takenOver: rootIds.filter((id) => existing.get(id) === false), gone: rootIds.filter((id) => !existing.has(id)) };
  }

  /** Every turn of a tree, parents before children, with its last stored seq. */
  async turns(rootId: string): Promise<TreeTurn[]> {
    const rows = await this.prisma.$queryRaw<
      {
        id: string;
        session_id: string;
        agent: string;
        depth: number;
        parent_id: string | null;
        agent_path: string[];
        status: string;
        last_seq: number;
        ephemeral: boolean;
      }[]
    >`
      SELECT t.id, t.session_id, t.agent, t.depth, t.parent_id, t.agent_path, t.status::text AS status, t.ephemeral,
             GREATEST(t.last_seq, COALESCE((SELECT e.last_seq FROM turn_events e WHERE e.turn_id = t.id ORDER BY e.seq DESC LIMIT 1), 0)) AS last_seq
      FROM turns t WHERE t.root_id = ${rootId}::uuid ORDER BY t.depth, t.started_at`;
    return rows.map((r) => ({
      id: r.id,
      sessionId: r.session_id,
      agent: r.agent,
      depth: r.depth,
      parentId: r.parent_id,
      agentPath: r.agent_path,
      status: r.status,
      lastSeq: Number(r.last_seq),
      ephemeral: r.ephemeral,
    }));
  }

  /**
   * Roots of trees whose holder's process stopped, or whose holder stopped beating before
   * `staleBefore` (this process included, for trees it lost track of).
   */
  async orphans(staleBefore: Date): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT id FROM turns WHERE parent_id IS NULL AND runner IS NOT NULL AND (heartbeat_at IS NULL OR heartbeat_at < ${staleBefore} OR ${this.holderGone()})`;
    return rows.map((r) => r.id);
  }

  private holderGone(): Prisma.Sql {
    return this.liveness.gone(Prisma.sql`runner`);
  }
}
