import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy, visibleTo } from '../auth/scope.js';
import type { Message, Session, Turn } from '../db/generated/client.js';
import { sqlStateOf } from '../db/sql-state.js';
import { ForbiddenError, NotFoundError, SessionBusyError } from '../errors.js';
import { turnEventStream } from '../events/turn-events.js';
import { getSession } from '../memory/sessions.js';
import { parseInput } from '../validation.js';
import type { EngineDeps } from './engine-deps.js';
import { historyFor } from './history.js';
import { freshState } from './run-state.js';
import type { Supervisor } from './supervisor.js';
import type { TurnRun } from './turn-run.js';
import type { TurnQuota } from './turn-quota.js';

const sendInput = z.object({
  sessionId: z.string().uuid().nullish(),
  content: z.string().trim().min(1, 'must not be empty').max(100_000, 'must be at most 100000 characters'),
  agent: z.string().trim().min(1).max(64).nullish(),
  model: z.string().trim().min(1).max(200).nullish(),
  metadata: z
    .record(z.string(), z.unknown())
    .refine((m) => JSON.stringify(m).length <= 16_384, 'must be at most 16 KiB of JSON')
    .nullish(),
});

export type SendMessageInput = z.input<typeof sendInput>;

export interface SendMessageOutcome {
  turn: Turn;
  session: Session;
  userMessage: Message;
}

const TERMINAL = new Set(['COMPLETED', 'MAX_ITERATIONS', 'ERROR', 'CANCELLED', 'INTERRUPTED']);

/**
 * What callers do with turns: send a message (which starts one), look one up, cancel one. The
 * supervisor runs them; `sendMessage` returns as soon as the turn and the user message are stored.
 */
export class TurnService {
  constructor(
    private readonly deps: EngineDeps,
    private readonly supervisor: Supervisor,
    private readonly quota: TurnQuota,
  ) {}

  async sendMessage(ctx: AgentContext, raw: SendMessageInput): Promise<SendMessageOutcome> {
    const input = parseInput(sendInput, raw, ['input']);
    const { agents, models, store, settings } = this.deps;
    const existing = input.sessionId ? await getSession(this.deps, ctx, input.sessionId) : null;
    // The answer is stored in the session's rows: a shared session's are readable by the whole tenant.
    if (existing && existing.userId === null && !ctx.isAdmin) throw new ForbiddenError('Only admins may send messages into a shared session');
    const agent = await agents.load(ctx, input.agent ?? ctx.agentSchemaUri ?? existing?.agent ?? settings.defaultAgent);
    const model = models.resolve(input.model ?? ctx.defaultModel ?? agent.spec.model ?? null);

    let started: SendMessageOutcome;
    try {
      started = await this.quota.admit(ctx, () =>
        store.startTurn({
          ctx,
          session: existing ?? { name: input.content.slice(0, 60), agent: input.agent ?? null },
          agent,
          model,
          content: input.content,
          metadata: input.metadata ?? {},
        }),
      );
    } catch (error) {
      const state = sqlStateOf(error);
      if (existing && state === '23505') throw new SessionBusyError(existing.id, (await this.activeTurn(existing.id))?.id);
      if (existing && state === '23503') throw new NotFoundError('Session');
      throw error;
    }

    const { turn, session } = started;
    const tree = this.supervisor.adopt(turn);
    const run: TurnRun = { turn, session, agent, model, ctx, state: freshState(agent, ctx, [], input.content), signal: tree.controller.signal };
    this.supervisor.launch(tree, run, async () => {
      if (existing) run.state = freshState(agent, ctx, await historyFor(this.deps, session.id, agent, started.userMessage.seq), input.content);
    });
    this.deps.pubsub.publish('session:updated', session.id, { session, deleted: false });
    return started;
  }

  /** A turn the caller can see; NOT_FOUND otherwise. */
  async getTurn(ctx: AgentContext, id: string): Promise<Turn> {
    const turn = await this.deps.prisma.turn.findFirst({ where: { id, ...visibleTo(ctx) } });
    if (!turn) throw new NotFoundError('Turn');
    return turn;
  }

  /**
   * Stops a turn's whole tree, wherever it runs: running turns end CANCELLED, paused ones have
   * their pending approvals rejected. Resolves with the turn once it has ended.
   */
  async cancelTurn(ctx: AgentContext, id: string, waitMs = 10_000): Promise<Turn> {
    const { prisma, pubsub } = this.deps;
    const turn = await prisma.turn.findFirst({ where: { id, ...ownedBy(ctx) } });
    if (!turn) throw new NotFoundError('Turn');
    if (TERMINAL.has(turn.status)) return turn;
    if (!(await this.supervisor.cancelTree(turn.rootId))) {
      pubsub.publish('turn:cancel', { turnId: id, rootId: turn.rootId, requestedBy: ctx.userId });
      await this.untilEnded(turn, waitMs);
    }
    return prisma.turn.findUniqueOrThrow({ where: { id } });
  }

  private async untilEnded(turn: Turn, waitMs: number) {
    const events = turnEventStream(this.deps, turn, turn.lastSeq);
    let timer: NodeJS.Timeout | undefined;
    const ended = (async () => {
      for await (const event of events) if (event.type === 'final') return;
    })();
    await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    await events.return(undefined);
  }

  private activeTurn(sessionId: string) {
    return this.deps.prisma.turn.findFirst({ where: { sessionId, parentId: null, status: { in: ['RUNNING', 'AWAITING_APPROVAL'] } }, select: { id: true } });
  }
}
