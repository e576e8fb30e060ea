import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy, visibleTo } from '../auth/scope.js';
import type { Message, Prisma, PrismaClient, Session, Turn } from '../db/generated/client.js';
import { NotFoundError, SessionBusyError } from '../errors.js';
import { TurnEventLog, type EventLogDeps } from '../events/event-log.js';
import { EventWriter } from '../events/event-writer.js';
import type { RemPubSub } from '../events/pubsub.js';
import type { ModelResolver } from '../llm/resolve-model.js';
import type { Logger } from '../logger.js';
import { appendMessages, loadHistory } from '../memory/messages.js';
import { getSession } from '../memory/sessions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { parseInput } from '../validation.js';
import type { AgentRegistry } from './registry.js';
import { runTurn, type StopReason } from './runner.js';

export interface TurnServiceDeps {
  prisma: PrismaClient;
  pubsub: RemPubSub;
  logger: Logger;
  agents: AgentRegistry;
  models: ModelResolver;
  tools: ToolRegistry;
  settings: { defaultAgent: string; historyTokenBudget: number; eventFlushMs: number };
}

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

interface ActiveRun {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Starts turns and keeps track of the ones this process runs: `sendMessage` stores the user
 * message and a RUNNING turn, returns at once and runs the agent in the background.
 */
export class TurnService {
  private readonly active = new Map<string, ActiveRun>();
  readonly processId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly stopListening: () => void;
  private readonly writer: EventWriter;

  constructor(private readonly deps: TurnServiceDeps) {
    this.writer = new EventWriter(deps.prisma, deps.logger, deps.settings.eventFlushMs);
    const cancels = deps.pubsub.subscribe('turn:cancel');
    void (async () => {
      for await (const { turnId } of cancels) this.active.get(turnId)?.controller.abort('cancelled' satisfies StopReason);
    })();
    this.stopListening = () => void cancels.return?.();
  }

  async sendMessage(ctx: AgentContext, raw: SendMessageInput): Promise<SendMessageOutcome> {
    const input = parseInput(sendInput, raw, ['input']);
    const { prisma } = this.deps;
    const session = input.sessionId
      ? await getSession(this.deps, ctx, input.sessionId)
      : await prisma.session.create({
          data: { name: input.content.slice(0, 60), tenantId: ctx.tenantId, userId: ctx.userId, agent: input.agent ?? null },
        });
    const agent = await this.deps.agents.load(ctx, input.agent ?? ctx.agentSchemaUri ?? session.agent ?? this.deps.settings.defaultAgent);
    const model = this.deps.models.resolve(input.model ?? ctx.defaultModel ?? agent.spec.model ?? null);

    let created: { turn: Turn; userMessage: Message };
    try {
      created = await prisma.$transaction(async (tx) => {
        const turn = await tx.turn.create({
          data: {
            sessionId: session.id,
            agent: agent.name,
            agentVersion: agent.version,
            model: model.id,
            agentPath: [agent.name],
            runner: this.processId,
            tenantId: session.tenantId,
            userId: session.userId,
          },
        });
        const [userMessage] = await appendMessages(tx, session, [
          { type: 'user', content: input.content, turnId: turn.id, metadata: (input.metadata ?? {}) as Prisma.InputJsonObject },
        ]);
        return { turn, userMessage: userMessage! };
      });
    } catch (error) {
      // Either the one-active-turn index or the message sequence: another turn got there first.
      if ((error as { code?: string }).code === 'P2002') {
        const running = await prisma.turn.findFirst({
          where: { sessionId: session.id, parentId: null, status: { in: ['RUNNING', 'AWAITING_APPROVAL'] } },
          select: { id: true },
        });
        throw new SessionBusyError(session.id, running?.id);
      }
      throw error;
    }

    const history = await loadHistory(prisma, session.id, this.deps.settings.historyTokenBudget, created.userMessage.seq);
    const log = new TurnEventLog(this.eventLogDeps(), {
      turnId: created.turn.id,
      sessionId: session.id,
      agent: agent.name,
      depth: 0,
      lastSeq: 0,
    });
    const controller = new AbortController();
    const done = runTurn(
      { prisma, tools: this.deps.tools, logger: this.deps.logger },
      { turnId: created.turn.id, session, agent, ctx, model, history, userContent: input.content, log, signal: controller.signal },
    )
      .then(() => this.touched(session.id))
      .catch((error) => this.deps.logger.error({ err: error, turnId: created.turn.id }, 'turn could not be finished'))
      .finally(() => this.active.delete(created.turn.id));
    this.active.set(created.turn.id, { controller, done });
    this.touched(session.id);
    return { turn: created.turn, session, userMessage: created.userMessage };
  }

  /** A turn the caller can see; NOT_FOUND otherwise. */
  async getTurn(ctx: AgentContext, id: string): Promise<Turn> {
    const turn = await this.deps.prisma.turn.findFirst({ where: { id, ...visibleTo(ctx) } });
    if (!turn) throw new NotFoundError('Turn');
    return turn;
  }

  /**
   * Asks the process running the turn to stop it; resolves with the turn once it has ended (or
   * at once, when it already had). The turn ends with status CANCELLED.
   */
  async cancelTurn(ctx: AgentContext, id: string, waitMs = 10_000): Promise<Turn> {
    const turn = await this.deps.prisma.turn.findFirst({ where: { id, ...ownedBy(ctx) } });
    if (!turn) throw new NotFoundError('Turn');
    if (turn.status !== 'RUNNING') return turn;
    const local = this.active.get(id);
    if (local) {
      local.controller.abort('cancelled' satisfies StopReason);
      await local.done;
    } else {
      this.deps.pubsub.publish('turn:cancel', { turnId: id, requestedBy: ctx.userId });
      const deadline = Date.now() + waitMs;
      while (Date.now() < deadline) {
        const current = await this.deps.prisma.turn.findUnique({ where: { id }, select: { status: true } });
        if (current?.status !== 'RUNNING') break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return this.deps.prisma.turn.findUniqueOrThrow({ where: { id } });
  }

  /** Stops every run of this process (they end INTERRUPTED) and waits for them to be saved. */
  async shutdown(): Promise<void> {
    this.stopListening();
    for (const run of this.active.values()) run.controller.abort('shutdown' satisfies StopReason);
    await Promise.all([...this.active.values()].map((run) => run.done));
    await this.writer.flush().catch(() => {});
  }

  private eventLogDeps(): EventLogDeps {
    return { prisma: this.deps.prisma, pubsub: this.deps.pubsub, writer: this.writer };
  }

  private touched(sessionId: string) {
    void this.deps.prisma.session
      .findUnique({ where: { id: sessionId } })
      .then((session) => session && this.deps.pubsub.publish('session:updated', sessionId, { session, deleted: false }));
  }
}
