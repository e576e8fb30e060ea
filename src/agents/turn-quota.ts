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
    const mine = { tenantId, userId, parentId: null };
    const [running, recent] = await Promise.all([
      this.prisma.turn.count({ where: { ...mine, status: 'RUNNING' } }),
      this.prisma.turn.findMany({
        where: { ...mine, startedAt: { gt: new Date(Date.now() - MINUTE_MS) } },
        orderBy: { startedAt: 'desc' },
        take: turnsPerMinute,
        select: { startedAt: true },
      }),
    ]);
    if (running >= concurrentTurnsPerUser) {
      throw new RateLimitedError(
        `You have ${running} turns running; at most ${concurrentTurnsPerUser} may run at once (MAX_CONCURRENT_TURNS_PER_USER)`,
        RETRY_WHILE_RUNNING_MS,
      );
    }
    if (recent.length >= turnsPerMinute) {
      const oldest = recent[recent.length - 1]!.startedAt.getTime();
      throw new RateLimitedError(
        `You started ${recent.length} turns in the last minute; at most ${turnsPerMinute} are allowed (MAX_TURNS_PER_MINUTE)`,
        Math.max(1, oldest + MINUTE_MS - Date.now()),
      );
    }
  }
}
