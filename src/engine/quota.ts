import type { AgentContext } from '../auth/agent-context.js';
import type { PrismaClient } from '../db/generated/client.js';
import { RateLimitedError } from '../errors.js';

export interface TurnQuotaSettings {
  concurrentTurnsPerUser: number;
  turnsPerMinute: number;
}

const MINUTE_MS = 60_000;
/** When a running turn will end is unknown: suggest looking again soon. */
const RETRY_WHILE_RUNNING_MS = 2_000;

/**
 * Per-user limits on starting turns. The figures come from the turns table, so every instance
 * sharing the database counts the same turns; within one process a user's starts are taken one
 * at a time, so parallel requests cannot all slip under the limit together.
 */
export class TurnQuota {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly settings: TurnQuotaSettings,
  ) {}

  /** Runs `start` if the caller is within quota. @throws RateLimitedError */
  admit<T>(ctx: AgentContext, start: () => Promise<T>): Promise<T> {
    if (ctx.userId === null) return start();
    const key = `${ctx.tenantId}\u0000${ctx.userId}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(async () => {
      await this.check(ctx.tenantId, ctx.userId!);
      return start();
    });
    const settled = next.catch(() => {});
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }

  private async check(tenantId: string, userId: string): Promise<void> {
    const { concurrentTurnsPerUser, turnsPerMinute } = this.settings;
    // One round trip for both figures: this runs before every turn a user starts.
    const [figures] = await this.prisma.$queryRaw<{ running: number; recent: number; oldest: Date | null }[]>`
      WITH latest AS (
        SELECT started_at FROM turns
        WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND parent_id IS NULL AND started_at > ${new Date(Date.now() - MINUTE_MS)}
        ORDER BY started_at DESC LIMIT ${turnsPerMinute}
      )
      SELECT (SELECT count(*)::int FROM turns WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND parent_id IS NULL AND status = 'RUNNING') AS running,
             (SELECT count(*)::int FROM latest) AS recent,
             (SELECT min(started_at) FROM latest) AS oldest`;
    const { running, recent, oldest } = figures!;
    if (running >= concurrentTurnsPerUser) {
      throw new RateLimitedError(
        `You have ${running} turns running; at most ${concurrentTurnsPerUser} may run at once (MAX_CONCURRENT_TURNS_PER_USER)`,
        RETRY_WHILE_RUNNING_MS,
      );
    }
    if (recent >= turnsPerMinute) {
      throw new RateLimitedError(
        `You started ${recent} turns in the last minute; at most ${turnsPerMinute} are allowed (MAX_TURNS_PER_MINUTE)`,
        Math.max(1, new Date(oldest!).getTime() + MINUTE_MS - Date.now()),
      );
    }
  }
}
