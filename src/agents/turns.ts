import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy, visibleTo } from '../auth/scope.js';
import type { Message, Prisma, PrismaClient, Session, Turn } from '../db/generated/client.js';
import { NotFoundError, SessionBusyError } from '../errors.js';
import type { AgentEvent, UsageTotals } from '../events/agent-event.js';
import { lastLoggedSeq, TurnEventLog } from '../events/event-log.js';
import { EventWriter } from '../events/event-writer.js';
import type { RemPubSub } from '../events/pubsub.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { ModelResolver } from '../llm/resolve-model.js';
import type { Logger } from '../logger.js';
import { appendMessages, loadHistory, type HistoryOptions } from '../memory/messages.js';
import { getSession } from '../memory/sessions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { DelegationRequest, DelegationResult } from '../tools/tool.js';
import { ToolPause } from '../tools/tool-pause.js';
import { parseInput } from '../validation.js';
import { finishIdleTurn, interruptOrphans, publishIdle } from './idle-turns.js';
import type { AgentRegistry, ResolvedAgent } from './registry.js';
import { freshState, runTurn, type Resolution, type RunInput, type RunResult, type RunState, type StopReason } from './runner.js';

export interface TurnSettings {
  defaultAgent: string;
  historyTokenBudget: number;
  historyCompressChars: number;
  eventFlushMs: number;
  approvalTtlMs: number;
  heartbeatMs: number;
  maxDepth: number;
}

export interface TurnServiceDeps {
  prisma: PrismaClient;
  pubsub: RemPubSub;
  logger: Logger;
  agents: AgentRegistry;
  models: ModelResolver;
  tools: ToolRegistry;
  settings: TurnSettings;
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

/** A run in progress on this process, keyed by every turn id of its tree. */
interface ActiveRun {
  controller: AbortController;
  done: Promise<unknown>;
}

/** What a running turn hands to its children. */
interface RunContext {
  turnId: string;
  session: Session;
  ctx: AgentContext;
  model: ChatModel;
  log: TurnEventLog;
  signal: AbortSignal;
  depth: number;
  agentPath: string[];
  run: ActiveRun;
}

const ACTIVE = ['RUNNING', 'AWAITING_APPROVAL'] as const;

/**
 * Starts, resumes and cancels turns, and keeps track of the ones this process runs. `sendMessage`
 * stores the user message and a RUNNING turn, returns at once and runs the agent in the
 * background. A paused turn (awaiting approval) lives only in the database; whichever process
 * records the last decision resumes it.
 */
export class TurnService {
  readonly processId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly active = new Map<string, ActiveRun>();
  private readonly writer: EventWriter;
  private readonly stopCancels: () => void;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly deps: TurnServiceDeps) {
    this.writer = new EventWriter(deps.prisma, deps.logger, deps.settings.eventFlushMs);
    const cancels = deps.pubsub.subscribe('turn:cancel');
    void (async () => {
      for await (const { turnId } of cancels) this.active.get(turnId)?.controller.abort('cancelled' satisfies StopReason);
    })();
    this.stopCancels = () => void cancels.return?.();
    this.heartbeat = setInterval(() => void this.beat(), deps.settings.heartbeatMs);
    this.heartbeat.unref();
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
        const turn = await tx.turn.create({ data: this.newTurn(session, agent, model, { depth: 0, agentPath: [agent.name] }) });
        const [userMessage] = await appendMessages(tx, session, [
          { type: 'user', content: input.content, turnId: turn.id, metadata: (input.metadata ?? {}) as Prisma.InputJsonObject },
        ]);
        return { turn, userMessage: userMessage! };
      });
    } catch (error) {
      // Either the one-active-turn index or the message sequence: another turn got there first.
      if ((error as { code?: string }).code === 'P2002') {
        const running = await prisma.turn.findFirst({ where: { sessionId: session.id, parentId: null, status: { in: [...ACTIVE] } }, select: { id: true } });
        throw new SessionBusyError(session.id, running?.id);
      }
      throw error;
    }

    const history = await loadHistory(prisma, session.id, this.historyOptions(agent, created.userMessage.seq));
    const log = this.newLog(created.turn, 0);
    const state = freshState({ agent, ctx, session }, history, input.content);
    this.launch(created.turn, session, agent, model, log, state, new AbortController());
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
   * Stops a turn and its children: a running one through whichever process runs it, a paused one
   * directly (its pending approvals are rejected). Resolves with the turn once it has ended.
   */
  async cancelTurn(ctx: AgentContext, id: string, waitMs = 10_000): Promise<Turn> {
    const { prisma } = this.deps;
    const turn = await prisma.turn.findFirst({ where: { id, ...ownedBy(ctx) } });
    if (!turn) throw new NotFoundError('Turn');
    if (turn.status === 'AWAITING_APPROVAL') await this.cancelPaused(turn);
    if (turn.status === 'RUNNING') {
      const local = this.active.get(id);
      if (local) {
        local.controller.abort('cancelled' satisfies StopReason);
        await local.done;
      } else {
        this.deps.pubsub.publish('turn:cancel', { turnId: id, requestedBy: ctx.userId });
        const deadline = Date.now() + waitMs;
        while (Date.now() < deadline && (await prisma.turn.findUnique({ where: { id }, select: { status: true } }))?.status === 'RUNNING') {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }
    return prisma.turn.findUniqueOrThrow({ where: { id } });
  }

  /**
   * Continues a paused turn once nothing it waits on is pending: claims it in the database (so
   * exactly one process resumes it), rebuilds the run from its checkpoint and runs it here.
   * Returns false when the turn is not ready or another process claimed it.
   */
  async resume(turnId: string): Promise<boolean> {
    await this.writer.flush().catch(() => {});
    const { prisma } = this.deps;
    const claimed = await prisma.$queryRaw<{ id: string }[]>`
      UPDATE turns SET status = 'RUNNING', runner = ${this.processId}, heartbeat_at = now()
      WHERE id = ${turnId}::uuid AND status = 'AWAITING_APPROVAL'
        AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = turns.id AND a.status = 'PENDING')
        AND NOT EXISTS (SELECT 1 FROM turns c WHERE c.parent_id = turns.id AND c.status IN ('RUNNING', 'AWAITING_APPROVAL'))
      RETURNING id`;
    if (claimed.length === 0) return false;
    try {
      const turn = await prisma.turn.findUniqueOrThrow({ where: { id: turnId }, include: { session: true } });
      const state = turn.checkpoint as unknown as RunState;
      const agent = await this.deps.agents.load(state.context, turn.agent, turn.agentVersion);
      const model = this.deps.models.resolve(turn.model);
      const resolutions = await this.resolutionsFor(state);
      const log = this.newLog(turn, await lastLoggedSeq(prisma, turn.id));
      const controller = new AbortController();
      if (turn.parentId) await this.forwardToIdleAncestors(log, turn);
      this.launch(turn, turn.session, agent, model, log, state, controller, resolutions);
      return true;
    } catch (error) {
      this.deps.logger.error({ err: error, turnId }, 'could not resume turn');
      await prisma.turn.update({ where: { id: turnId }, data: { status: 'AWAITING_APPROVAL' } }).catch(() => {});
      throw error;
    }
  }

  /**
   * Recovery work, run at start-up and then periodically: interrupts turns whose server stopped
   * beating, and resumes paused turns whose decisions are all in but which nobody resumed.
   */
  async sweep(): Promise<void> {
    const stale = new Date(Date.now() - 3 * this.deps.settings.heartbeatMs);
    const interrupted = await interruptOrphans(this.deps.prisma, this.deps.pubsub, stale);
    if (interrupted.length) this.deps.logger.warn({ turns: interrupted }, 'interrupted turns whose server stopped');
    // Decided but never resumed (the deciding process died in between): resume them here.
    const ready = await this.deps.prisma.$queryRaw<{ id: string }[]>`
      SELECT t.id FROM turns t WHERE t.status = 'AWAITING_APPROVAL'
        AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = t.id AND a.status = 'PENDING')
        AND NOT EXISTS (SELECT 1 FROM turns c WHERE c.parent_id = t.id AND c.status IN ('RUNNING', 'AWAITING_APPROVAL'))
      ORDER BY t.depth DESC`;
    for (const { id } of ready) await this.resume(id).catch(() => {});
  }

  /** Stops every run of this process (they end INTERRUPTED) and waits for them to be saved. */
  async shutdown(): Promise<void> {
    clearInterval(this.heartbeat);
    this.stopCancels();
    const runs = new Set(this.active.values());
    for (const run of runs) run.controller.abort('shutdown' satisfies StopReason);
    await Promise.all([...runs].map((run) => run.done));
    await this.writer.flush().catch(() => {});
  }

  private launch(
    turn: Turn,
    session: Session,
    agent: ResolvedAgent,
    model: ChatModel,
    log: TurnEventLog,
    state: RunState,
    controller: AbortController,
    resolutions?: Map<string, Resolution>,
  ) {
    const run: ActiveRun = { controller, done: Promise.resolve() };
    const context: RunContext = { turnId: turn.id, session, ctx: state.context, model, log, signal: controller.signal, depth: turn.depth, agentPath: turn.agentPath, run };
    run.done = this.execute(context, agent, state, turn.parentId !== null, resolutions)
      .then(async (result) => {
        this.touched(session.id);
        if (result.status === 'AWAITING_APPROVAL') {
          this.deps.pubsub.publish('approvals:changed', session.tenantId, { sessionId: session.id, turnId: turn.id });
        }
        // A child that finished after its own pause lets its waiting parent continue.
        if (turn.parentId && result.status !== 'AWAITING_APPROVAL') await this.resume(turn.parentId);
      })
      .catch((error) => this.deps.logger.error({ err: error, turnId: turn.id }, 'turn could not be finished'));
    this.active.set(turn.id, run);
  }

  private async execute(run: RunContext, agent: ResolvedAgent, state: RunState, isChild: boolean, resolutions?: Map<string, Resolution>): Promise<RunResult> {
    try {
      return await runTurn(this.runnerDeps(), this.runInput(run, agent, isChild, resolutions), state);
    } finally {
      if (this.active.get(run.turnId) === run.run) this.active.delete(run.turnId);
    }
  }

  /** Runs a child agent inside a parent's tool call (ask_agent); its events stream into the parent's. */
  private async delegate(parent: RunContext, request: DelegationRequest): Promise<DelegationResult & { usage: UsageTotals }> {
    const depth = parent.depth + 1;
    if (depth > this.deps.settings.maxDepth) {
      throw new Error(`Delegation depth limit reached: ${parent.agentPath.join(' → ')} may not ask another agent (MAX_AGENT_DEPTH ${this.deps.settings.maxDepth})`);
    }
    const agent = await this.deps.agents.load(parent.ctx, request.agentName);
    const model = agent.spec.model ? this.deps.models.resolve(agent.spec.model) : parent.model;
    const child = await this.deps.prisma.turn.create({
      data: { ...this.newTurn(parent.session, agent, model, { depth, agentPath: [...parent.agentPath, agent.name] }), parentId: parent.turnId },
    });
    const log = this.newLog(child, 0);
    forward(log, parent.log, child);
    const history = await loadHistory(this.deps.prisma, parent.session.id, this.historyOptions(agent));
    const content = request.inputData === undefined ? request.inputText : `${request.inputText}\n\nInput data (JSON):\n${JSON.stringify(request.inputData)}`;
    const state = freshState({ agent, ctx: parent.ctx, session: parent.session }, history, content);
    const run: RunContext = { ...parent, turnId: child.id, model, log, depth, agentPath: child.agentPath };
    this.active.set(child.id, parent.run);
    const result = await this.execute(run, agent, state, true);
    if (result.status === 'AWAITING_APPROVAL') throw new ToolPause(child.id);
    return { childTurnId: child.id, agent: agent.name, status: result.status, content: result.content, usage: result.usage };
  }

  private runInput(run: RunContext, agent: ResolvedAgent, isChild: boolean, resolutions?: Map<string, Resolution>): RunInput {
    return {
      turnId: run.turnId,
      session: run.session,
      agent,
      ctx: run.ctx,
      model: run.model,
      log: run.log,
      signal: run.signal,
      depth: run.depth,
      agentPath: run.agentPath,
      isChild,
      resolutions,
      delegate: (request) => this.delegate(run, request),
    };
  }

  private async resolutionsFor(state: RunState): Promise<Map<string, Resolution>> {
    const map = new Map<string, Resolution>();
    for (const call of state.pending) {
      if (call.approvalId) {
        const approval = await this.deps.prisma.approval.findUniqueOrThrow({ where: { id: call.approvalId } });
        map.set(call.toolCallId, { kind: 'approval', approvalId: approval.id, approved: approval.approved === true, reason: approval.reason });
      } else if (call.childTurnId) {
        const child = await this.deps.prisma.turn.findUniqueOrThrow({ where: { id: call.childTurnId } });
        const final = await this.deps.prisma.turnEvent.findFirst({ where: { turnId: child.id, type: 'final' }, orderBy: { seq: 'desc' } });
        const content = (final?.payload as { content?: string | null } | undefined)?.content ?? null;
        const usage = { inputTokens: 0, outputTokens: 0, requests: 0, ...(child.usage as Partial<UsageTotals>) };
        map.set(call.toolCallId, { kind: 'child', result: { childTurnId: child.id, agent: child.agent, status: child.status, content }, usage });
      }
    }
    return map;
  }

  /** A resumed child's events also reach its (paused) ancestors' logs, as they would live. */
  private async forwardToIdleAncestors(log: TurnEventLog, turn: Turn) {
    let child = turn;
    let childLog = log;
    while (child.parentId) {
      const parent = await this.deps.prisma.turn.findUniqueOrThrow({ where: { id: child.parentId } });
      const parentLog = this.newLog(parent, await lastLoggedSeq(this.deps.prisma, parent.id));
      forward(childLog, parentLog, child);
      child = parent;
      childLog = parentLog;
    }
  }

  private async cancelPaused(turn: Turn) {
    const { prisma } = this.deps;
    const events = await prisma.$transaction(async (tx) => {
      const tree = await tx.$queryRaw<{ id: string }[]>`
        WITH RECURSIVE tree AS (SELECT id FROM turns WHERE id = ${turn.id}::uuid UNION ALL SELECT t.id FROM turns t JOIN tree ON t.parent_id = tree.id)
        SELECT id FROM tree`;
      const ids = tree.map((r) => r.id);
      await tx.approval.updateMany({
        where: { turnId: { in: ids }, status: 'PENDING' },
        data: { status: 'REJECTED', approved: false, reason: 'The turn was cancelled', decidedAt: new Date() },
      });
      const paused = await tx.turn.findMany({ where: { id: { in: ids }, status: 'AWAITING_APPROVAL' }, orderBy: { depth: 'desc' } });
      const out: AgentEvent[] = [];
      for (const t of paused) out.push(...(await finishIdleTurn(tx, t, 'CANCELLED', null)));
      return out;
    });
    publishIdle(this.deps.pubsub, turn.sessionId, events);
    this.deps.pubsub.publish('approvals:changed', turn.tenantId, { sessionId: turn.sessionId, turnId: turn.id });
    // A child resumed after its approval may be running under the paused parent: stop it too.
    const running = await prisma.turn.findMany({ where: { sessionId: turn.sessionId, status: 'RUNNING', depth: { gt: turn.depth } }, select: { id: true } });
    for (const { id } of running) this.deps.pubsub.publish('turn:cancel', { turnId: id, requestedBy: null });
  }

  private newTurn(session: Session, agent: ResolvedAgent, model: ChatModel, where: { depth: number; agentPath: string[] }) {
    return {
      sessionId: session.id,
      agent: agent.name,
      agentVersion: agent.version,
      model: model.id,
      depth: where.depth,
      agentPath: where.agentPath,
      runner: this.processId,
      heartbeatAt: new Date(),
      tenantId: session.tenantId,
      userId: session.userId,
    };
  }

  private newLog(turn: Turn, lastSeq: number) {
    return new TurnEventLog(
      { prisma: this.deps.prisma, pubsub: this.deps.pubsub, writer: this.writer },
      { turnId: turn.id, sessionId: turn.sessionId, agent: turn.agent, depth: turn.depth, lastSeq },
    );
  }

  private historyOptions(agent: ResolvedAgent, beforeSeq?: number): HistoryOptions {
    const canLookUp = agent.spec.tools.some((tool) => tool.name === 'search');
    return {
      budgetTokens: this.deps.settings.historyTokenBudget,
      beforeSeq,
      compressAboveChars: canLookUp && this.deps.settings.historyCompressChars > 0 ? this.deps.settings.historyCompressChars : undefined,
    };
  }

  private runnerDeps() {
    return { prisma: this.deps.prisma, tools: this.deps.tools, logger: this.deps.logger, approvalTtlMs: this.deps.settings.approvalTtlMs };
  }

  private async beat() {
    const ids = [...this.active.keys()];
    if (ids.length) await this.deps.prisma.turn.updateMany({ where: { id: { in: ids }, status: 'RUNNING' }, data: { heartbeatAt: new Date() } }).catch(() => {});
  }

  private touched(sessionId: string) {
    void this.deps.prisma.session
      .findUnique({ where: { id: sessionId } })
      .then((session) => session && this.deps.pubsub.publish('session:updated', sessionId, { session, deleted: false }));
  }
}

/** Streams a child's events into its parent's log as `child` events (already wrapped ones as they are). */
function forward(childLog: TurnEventLog, parentLog: TurnEventLog, child: { id: string; agent: string; agentPath: string[] }) {
  childLog.listen((event) => {
    parentLog.emit(
      event.type === 'child'
        ? { type: 'child', childTurnId: event.childTurnId, childAgent: event.childAgent, path: event.path, event: event.event }
        : { type: 'child', childTurnId: child.id, childAgent: child.agent, path: child.agentPath, event },
    );
  });
}
