import type { AgentContext } from '../auth/agent-context.js';
import type { Session, Turn } from '../db/generated/client.js';
import { isForeignKeyViolation } from '../db/sql-state.js';
import type { UsageTotals } from '../events/agent-event.js';
import type { TerminalStatus } from '../events/turn-status.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { DelegationRequest, DelegationResult } from '../tools/tool.js';
import { runAgentLoop } from './agent-loop.js';
import { requestScope } from './model-request.js';
import type { EngineDeps } from './engine-deps.js';
import type { ResolvedAgent } from '../agents/registry.js';
import { TreeLostError } from './turn-store.js';
import { VanishedTurnError } from '../events/event-writer.js';
import { emptyUsage, type ModelCallRecord, type Resolution, type RunState } from './run-state.js';
import type { ModelCallRow } from '../events/event-statements.js';
import { storable } from '../events/storable.js';
import { storedRequest } from './request-history.js';
import { activeSpanIds, inSpan } from '../telemetry/tracing.js';

/** One run of one turn on this process: everything the loop, the store and the supervisor need. */
export interface TurnRun {
  turn: Turn;
  session: Session;
  agent: ResolvedAgent;
  model: ChatModel;
  /** The request's context: identity, and the added instruction that is never stored. */
  ctx: AgentContext;
  state: RunState;
  /** The tree's signal: cancelling or shutting down stops every run of the tree. */
  signal: AbortSignal;
  /** Decisions and child results, when resuming from a checkpoint. */
  resolutions?: Map<string, Resolution>;
}

export interface RunResult {
  status: TerminalStatus | 'AWAITING_APPROVAL';
  content: string | null;
  usage: UsageTotals;
  /** When the outcome (or the pause) was stored: the session's new update time. */
  at: Date;
}

export type Delegate = (parent: TurnRun, request: DelegationRequest) => Promise<DelegationResult & { usage: UsageTotals }>;

/**
 * Runs the agent loop for one turn and stores where it got to: on a pause, the approvals and the
 * checkpoint with the approval_needed events; at the end, the outcome with the final event. Both
 * are stored in one transaction with their events before anyone sees those events.
 */
export function executeRun(deps: EngineDeps, run: TurnRun, delegate: Delegate): Promise<RunResult> {
  const { turn, agent } = run;
  const attributes = {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': agent.name,
    'gen_ai.conversation.id': turn.sessionId,
    'remgraph.turn.id': turn.id,
    'remgraph.turn.depth': turn.depth,
  };
  return inSpan(`invoke_agent ${agent.name}`, { attributes }, async (span) => {
    const result = await runAndStore(deps, run, delegate);
    span.setAttribute('remgraph.turn.status', result.status);
    return result;
  });
}

async function runAndStore(deps: EngineDeps, run: TurnRun, delegate: Delegate): Promise<RunResult> {
  const { hub, store, settings, logger } = deps;
  const { turn, state } = run;
  const outcome = await runAgentLoop({
    agent: run.agent,
    model: run.model,
    tools: deps.tools,
    state,
    signal: run.signal,
    request: requestScope(run.ctx, run.session),
    gatedTools: new Set(state.inheritedGates ?? []),
    maxToolCallsPerResponse: settings.maxToolCallsPerResponse,
    resolutions: run.resolutions,
    ports: {
      emit: (body) => void hub.emit(turn.id, body),
      delegate: (request) => delegate(run, request),
      toolContext: {
        agent: state.context,
        prisma: deps.prisma,
        turnId: turn.id,
        sessionId: turn.sessionId,
        jobId: null,
        agentName: run.agent.name,
        ...(state.overrides?.binding ? { binding: state.overrides.binding } : {}),
      },
      onUnexpected: (error) => logger.error({ err: error, turnId: turn.id }, 'agent run failed'),
      // Stored with the turn's next events (at the latest its outcome), in the same statement.
      modelCalled: async (call) => hub.recordModelCall(modelCallRow(turn, state, call)),
    },
  });
  const at = new Date();
  try {
    if (outcome.kind === 'paused') {
      const expiresAt = settings.approvalTtlMs > 0 ? new Date(Date.now() + settings.approvalTtlMs) : null;
      await hub.commit(
        turn.id,
        outcome.approvals.map((c) => ({
          type: 'approval_needed',
          approvalId: c.approvalId!,
          toolCallId: c.toolCallId,
          name: c.name,
          arguments: c.shown,
          agentPath: turn.agentPath,
        })),
        store.pauseWrites(turn, state, outcome.approvals, expiresAt, activeSpanIds()),
      );
      return { status: 'AWAITING_APPROVAL', content: null, usage: state.usage, at };
    }
    await hub.commit(
      turn.id,
      [{ type: 'final', status: outcome.status, content: state.text || null, sources: state.sources, usage: state.usage }],
      store.outcomeWrites({ ...turn, model: run.model.id, isChild: turn.parentId !== null }, state, outcome.status, outcome.error, at, activeSpanIds()),
    );
  } catch (error) {
    if (error instanceof TreeLostError) logger.warn({ turnId: turn.id }, error.message);
    else if (error instanceof VanishedTurnError || isForeignKeyViolation(error))
      logger.warn({ turnId: turn.id }, 'the turn was deleted (with its session) before its outcome could be stored');
    else logger.error({ err: error, turnId: turn.id }, 'turn could not be stored');
  }
  return { status: outcome.kind === 'paused' ? 'AWAITING_APPROVAL' : outcome.status, content: state.text || null, usage: state.usage, at };
}

/**
 * Ends a turn that no process is running (a paused turn cancelled, or one whose process died): an
 * optional error event, then the final event, stored with the turn's status so every
 * subscriber's stream completes.
 */
export async function finishIdleTurn(
  deps: Pick<EngineDeps, 'hub' | 'store'>,
  turn: Pick<Turn, 'id' | 'usage'>,
  status: TerminalStatus,
  error: { code: string; message: string } | null,
): Promise<void> {
  const usage = { ...emptyUsage(), ...(turn.usage as Partial<UsageTotals>) };
  await deps.hub.commit(
    turn.id,
    [...(error ? [{ type: 'error' as const, ...error }] : []), { type: 'final', status, content: null, sources: [], usage }],
    deps.store.idleOutcomeWrites(turn.id, status, error),
  );
}

/** One model call of a turn as its llm_calls row (the request body as sent, its history by reference), for the event writer to store. */
function modelCallRow(
  turn: Pick<Turn, 'id' | 'sessionId' | 'tenantId' | 'userId'>,
  state: Pick<RunState, 'messages' | 'history'>,
  call: ModelCallRecord,
  at = new Date(),
): ModelCallRow {
  const { request, requestHistory } =
    call.request === null ? { request: null, requestHistory: null } : storedRequest(call.request, state.messages, state.history, turn.sessionId);
  return {
    turnId: turn.id,
    llmCall: {
      turn_id: turn.id,
      session_id: turn.sessionId,
      provider: call.provider,
      model: call.model,
      iteration: call.iteration,
      input_tokens: call.inputTokens,
      output_tokens: call.outputTokens,
      usage_estimated: call.usageEstimated,
      latency_ms: call.latencyMs,
      finish_reason: call.finishReason,
      error: call.error,
      request: request === null ? null : storable(request),
      request_history: requestHistory,
      tenant_id: turn.tenantId,
      user_id: turn.userId,
      created_at: at.toISOString(),
    },
  };
}
