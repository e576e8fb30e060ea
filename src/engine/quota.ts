import type { Config } from '../config/config.js';
import type { AgentContext } from '../auth/agent-context.js';
import { Prisma } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import { RateLimitedError, SessionBusyError } from '../errors.js';

/** MAX_CONCURRENT_TURNS_PER_USER and MAX_TURNS_PER_MINUTE (config/security.ts). */
export type TurnQuotaSettings = Pick<Config['security']['quotas'], 'concurrentTurnsPerUser' | 'turnsPerMinute'>;

/** What the admission read: the caller's running turns, its starts, and the session's active turn. */
export interface AdmissionFigures {
  running: number;
  /**
   * When the caller is at MAX_TURNS_PER_MINUTE: when the oldest of its last MAX_TURNS_PER_MINUTE
   * starts was (a slot frees a minute after it). Null below the limit.
   */
  oldest: Date | string | null;
  busy: string | null;
}

/** The admission of a turn's start as parts of the statement that stores it (TurnQuota.admitWithin). */
export interface Admission {
  /** CTEs (`figures`, `admitted`, …), separated by commas. */
  ctes: Prisma.Sql;
  /** True when admitted: every write of the statement waits on it. */
  ok: Prisma.Sql;
  /** A result column, `admission`: the figures, for `judge`. */
  columns: Prisma.Sql;
  /** @throws the refusal the figures mean (RateLimitedError, SessionBusyError) */
  judge(figures: AdmissionFigures): void;
}

const MINUTE_MS = 60_000;
/** Above every start's ordinal (bigint): pruning a caller whose starts are all over a minute old removes them all. */
const MAX_ORDINAL = '9223372036854775807';
/** When a running turn will end is unknown: suggest looking again soon. */
const RETRY_WHILE_RUNNING_MS = 2_000;

/**
 * Per-user limits on starting turns. Anonymous callers (no identity, header mode) share one
 * allowance per tenant, as if they were one user: their identity is only what they claim, so a
 * bucket of their own would be no stronger. The figures come from the database (running turns from
 * `turns`, starts from `quota_starts`, which outlives the ephemeral turns that `turns` drops), so
 * every instance sharing it counts the same; within one process a user's starts are taken one at
 * a time, so parallel requests cannot all slip under the limit together.
 */
export class TurnQuota {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    /** Directly, not through Prisma's client: this runs before every turn. */
    private readonly sql: SqlClient,
    readonly settings: TurnQuotaSettings,
  ) {}

  /**
   * Admits a model-spending request that is not a turn (`extract`): it counts as a start toward
   * MAX_TURNS_PER_MINUTE and is refused while the caller is at MAX_CONCURRENT_TURNS_PER_USER, but
   * holds no running slot itself. @throws RateLimitedError
   */
  admitRequest(ctx: AgentContext): Promise<void> {
    return this.admit(ctx, async () => {});
  }

  /**
   * Runs `start` if the caller is within quota and `sessionId` (the session a turn starts in) has
   * no turn active; `start` holds the caller's place in line until it settles, so it should end
   * with the turn stored. @throws RateLimitedError, SessionBusyError
   */
  admit<T>(ctx: AgentContext, start: () => Promise<T>, sessionId: string | null = null): Promise<T> {
    return this.inLine(ctx, async () => {
      const statement = Prisma.sql`WITH ${this.admission(ctx, sessionId).ctes} SELECT running, oldest, busy FROM figures`;
      const [figures] = await this.sql.query<AdmissionFigures>(statement.text, statement.values);
      this.judge(ctx, sessionId, figures!);
      return start();
    });
  }

  /**
   * Runs `start` in the caller's line with the admission as SQL, for a statement that admits and
   * stores a turn at once (one round trip fewer): its writes wait on `admission.ok`, and it hands
   * the figures it read to `judge`. @throws RateLimitedError, SessionBusyError (from `judge`)
   */
  admitWithin<T>(ctx: AgentContext, sessionId: string | null, start: (admission: Admission) => Promise<T>): Promise<T> {
    return this.inLine(ctx, () => start({ ...this.admission(ctx, sessionId), judge: (figures) => this.judge(ctx, sessionId, figures) }));
  }

  /** Within one process a caller's starts are taken one at a time. */
  private inLine<T>(ctx: AgentContext, work: () => Promise<T>): Promise<T> {
    const key = `${ctx.tenantId}\u0000${ctx.userId ?? ''}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    const settled = next.catch(() => {});
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }

  /**
   * Both limits (and whether the session is busy) as CTEs: `figures` (what the caller has running,
   * and whether it started MAX_TURNS_PER_MINUTE within the last minute), `admitted` (its `ok`), and
   * the start recorded when admitted. The caller's starts older than a minute are pruned on the way
   * (read in number order, which is time order, up to the first that is not).
   * Each reads a bounded number of index entries, whatever the limits (a service account may be
   * allowed thousands of turns a minute): the running count stops at the limit, and the starts are
   * numbered, so the limit is reached when the start that many back is under a minute old.
   */
  private admission(ctx: AgentContext, sessionId: string | null): Omit<Admission, 'judge'> {
    const { tenantId, userId } = ctx;
    const { concurrentTurnsPerUser, turnsPerMinute } = this.settings;
    // The anonymous bucket holds the tenant's rows without an owner.
    const caller = userId === null ? Prisma.sql`tenant_id = ${tenantId} AND user_id IS NULL` : Prisma.sql`tenant_id = ${tenantId} AND user_id = ${userId}`;
    const now = new Date();
    const since = new Date(now.getTime() - MINUTE_MS);
    // The database's one-active-turn index still settles a race; this answers before any model call.
    const busy = sessionId
      ? Prisma.sql`(SELECT id FROM turns WHERE session_id = ${sessionId}::uuid AND parent_id IS NULL AND status IN ('RUNNING', 'AWAITING_APPROVAL') LIMIT 1)`
      : Prisma.sql`NULL::uuid`;
    const ctes = Prisma.sql`
      pruned AS (
        DELETE FROM quota_starts WHERE ${caller} AND ordinal < coalesce(
          (SELECT ordinal FROM quota_starts WHERE ${caller} AND started_at > ${since} ORDER BY ordinal LIMIT 1), ${MAX_ORDINAL}::bigint)
      ), latest AS (
        SELECT ordinal FROM quota_starts WHERE ${caller} ORDER BY ordinal DESC LIMIT 1
      ), figures AS (
        SELECT (SELECT count(*)::int FROM (
                  SELECT 1 FROM turns WHERE ${caller} AND parent_id IS NULL AND status = 'RUNNING' LIMIT ${concurrentTurnsPerUser}
                ) AS r) AS running,
               (SELECT CASE WHEN min(started_at) > ${since} THEN min(started_at) END FROM quota_starts
                WHERE ${caller} AND ordinal = (SELECT ordinal FROM latest) - ${turnsPerMinute - 1}::bigint) AS oldest,
               ${busy} AS busy
      ), admitted AS MATERIALIZED (
        SELECT running < ${concurrentTurnsPerUser} AND oldest IS NULL AND busy IS NULL AS ok FROM figures
      ), recorded AS (
        INSERT INTO quota_starts (tenant_id, user_id, started_at, ordinal)
        SELECT ${tenantId}, ${userId}, ${now}, coalesce((SELECT ordinal FROM latest), 0) + 1 FROM admitted WHERE ok
      )`;
    return { ctes, ok: Prisma.sql`(SELECT ok FROM admitted)`, columns: Prisma.sql`(SELECT row_to_json(figures) FROM figures) AS admission` };
  }

  /** Throws the refusal the figures mean, if any. */
  private judge(ctx: AgentContext, sessionId: string | null, figures: AdmissionFigures): void {
    const { concurrentTurnsPerUser, turnsPerMinute } = this.settings;
    const { running, oldest, busy: activeTurnId } = figures;
    if (sessionId && activeTurnId) throw new SessionBusyError(sessionId, activeTurnId);
    const who = ctx.userId === null ? 'Anonymous callers of this tenant, who share one allowance,' : 'You';
    if (running >= concurrentTurnsPerUser) {
      throw new RateLimitedError(
        `${who} have ${running} turns running; at most ${concurrentTurnsPerUser} may run at once (MAX_CONCURRENT_TURNS_PER_USER)`,
        RETRY_WHILE_RUNNING_MS,
      );
    }
    if (oldest !== null) {
      throw new RateLimitedError(
        `${who} started ${turnsPerMinute} turns or extractions in the last minute; at most ${turnsPerMinute} are allowed (MAX_TURNS_PER_MINUTE)`,
        Math.max(1, new Date(oldest).getTime() + MINUTE_MS - Date.now()),
      );
    }
  }
}
