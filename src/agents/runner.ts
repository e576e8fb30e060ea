import type { AgentContext } from '../auth/agent-context.js';
import type { Prisma, PrismaClient } from '../db/generated/client.js';
import { isAppError } from '../errors.js';
import type { Source, TerminalStatus, UsageTotals } from '../events/agent-event.js';
import type { TurnEventLog } from '../events/event-log.js';
import type { ChatMessage, ChatModel, ToolCall } from '../llm/chat-model.js';
import { isAbortError } from '../llm/chat-model.js';
import type { Logger } from '../logger.js';
import { appendMessages, type NewMessage } from '../memory/messages.js';
import { parseToolArguments, type ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/tool.js';
import { buildRequestInstructions, buildSystemPrompt, structuredOutputSchema } from './prompt.js';
import type { ResolvedAgent } from './registry.js';

export interface RunnerDeps {
  prisma: PrismaClient;
  tools: ToolRegistry;
  logger: Logger;
}

export interface RunInput {
  turnId: string;
  session: { id: string; tenantId: string; userId: string | null };
  agent: ResolvedAgent;
  ctx: AgentContext;
  model: ChatModel;
  history: ChatMessage[];
  userContent: string;
  log: TurnEventLog;
  signal: AbortSignal;
}

export interface ToolLogEntry {
  tool: string;
  toolCallId: string;
  arguments: unknown;
  result: unknown;
  isError: boolean;
  iteration: number;
}

/** Why a run stopped early, as given to AbortController.abort(). */
export type StopReason = 'cancelled' | 'shutdown';

interface RunState {
  status: TerminalStatus;
  iterations: number;
  usage: UsageTotals;
  text: string;
  toolLog: ToolLogEntry[];
  rows: NewMessage[];
  llmCalls: Prisma.LlmCallCreateManyInput[];
  sources: Source[];
  metadata: Record<string, unknown>;
  error: { code: string; message: string } | null;
}

/**
 * Runs one agent turn to its end: calls the model with the agent's tools, executes tool calls,
 * loops until the model answers, a limit is hit, or the run is cancelled; streams every step to the
 * turn's event log and persists the outcome (tool rows, then the assistant message, the turn, the
 * model calls) before the final event.
 */
export async function runTurn(deps: RunnerDeps, input: RunInput): Promise<TerminalStatus> {
  const { agent, model, log, signal } = input;
  const spec = agent.spec;
  const started = Date.now();
  const state: RunState = {
    status: 'COMPLETED',
    iterations: 0,
    usage: { inputTokens: 0, outputTokens: 0, requests: 0 },
    text: '',
    toolLog: [],
    rows: [],
    llmCalls: [],
    sources: [],
    metadata: {},
    error: null,
  };
  log.onEvent = (event) => {
    if (event.type === 'sources') state.sources.push(...event.sources);
    if (event.type === 'action' && event.actionType === 'metadata') Object.assign(state.metadata, event.payload);
  };

  const messages: ChatMessage[] = [
    { role: 'system', content: buildSystemPrompt(spec) },
    {
      role: 'system',
      content: buildRequestInstructions({
        now: new Date(),
        userId: input.ctx.userId,
        sessionId: input.session.id,
        agentName: agent.name,
        addedInstruction: input.ctx.addedInstruction,
      }),
    },
    ...input.history,
    { role: 'user', content: input.userContent },
  ];
  const tools = deps.tools.specsFor(spec.tools);
  const declared = new Set(spec.tools.map((t) => t.name));
  const responseFormat = structuredOutputSchema(spec);
  const toolCtx: ToolContext = {
    agent: input.ctx,
    prisma: deps.prisma,
    turnId: input.turnId,
    sessionId: input.session.id,
    agentName: agent.name,
    emit: (event) => void log.emit(event),
    signal,
  };

  try {
    while (true) {
      const limit = limitReached(spec, state);
      if (limit) {
        state.status = 'MAX_ITERATIONS';
        state.error = { code: 'MAX_ITERATIONS', message: limit };
        break;
      }
      state.iterations += 1;
      const callStarted = Date.now();
      let text = '';
      const calls: ToolCall[] = [];
      let finishReason: string | null = null;
      try {
        for await (const part of model.stream({
          messages,
          tools: tools.length ? tools : undefined,
          responseFormat,
          temperature: spec.temperature,
          maxTokens: spec.maxTokens,
          signal,
        })) {
          if (part.type === 'text-delta') {
            text += part.delta;
            state.text += part.delta;
            log.emit({ type: 'content', delta: part.delta });
          } else if (part.type === 'tool-call') {
            calls.push(part.call);
          } else {
            finishReason = part.reason;
            state.usage.inputTokens += part.usage.inputTokens;
            state.usage.outputTokens += part.usage.outputTokens;
          }
        }
      } finally {
        state.usage.requests += 1;
        state.llmCalls.push({
          turnId: input.turnId,
          sessionId: input.session.id,
          provider: model.provider,
          model: model.model,
          iteration: state.iterations,
          inputTokens: state.usage.inputTokens - sumCalls(state.llmCalls, 'inputTokens'),
          outputTokens: state.usage.outputTokens - sumCalls(state.llmCalls, 'outputTokens'),
          latencyMs: Date.now() - callStarted,
          finishReason,
          error: finishReason ? null : 'stream did not finish',
          tenantId: input.session.tenantId,
          userId: input.session.userId,
        });
      }
      if (calls.length === 0) break;

      messages.push({ role: 'assistant', content: text || null, toolCalls: calls });
      state.rows.push({
        type: 'tool_call',
        content: text || null,
        toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
        agentName: agent.name,
        turnId: input.turnId,
      });
      const parsed = calls.map((call) => ({ call, ...parseToolArguments(call.arguments) }));
      for (const { call, args, parsed: ok } of parsed) {
        log.emit({ type: 'tool_call', toolCallId: call.id, name: call.name, arguments: ok ? args : call.arguments, iteration: state.iterations });
      }
      const outcomes = await Promise.all(
        parsed.map(({ call, args }) =>
          declared.has(call.name)
            ? deps.tools.execute(call.name, args, toolCtx)
            : Promise.resolve({ result: { error: `Tool "${call.name}" is not available to agent ${agent.name}` }, isError: true }),
        ),
      );
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      parsed.forEach(({ call, args, parsed: ok }, i) => {
        const outcome = outcomes[i]!;
        log.emit({ type: 'tool_result', toolCallId: call.id, name: call.name, result: outcome.result, isError: outcome.isError });
        const content = JSON.stringify(outcome.result);
        messages.push({ role: 'tool', toolCallId: call.id, content });
        state.rows.push({ type: 'tool_response', content, toolCallId: call.id, toolName: call.name, agentName: agent.name, turnId: input.turnId });
        state.toolLog.push({
          tool: call.name,
          toolCallId: call.id,
          arguments: ok ? args : call.arguments,
          result: outcome.result,
          isError: outcome.isError,
          iteration: state.iterations,
        });
      });
      // Only the final answer is the turn's content; text before tool calls stays in tool_call rows.
      state.text = '';
    }
  } catch (error) {
    if (signal.aborted || isAbortError(error)) {
      state.status = signal.reason === 'shutdown' ? 'INTERRUPTED' : 'CANCELLED';
    } else {
      state.status = 'ERROR';
      state.error = isAppError(error)
        ? { code: error.code, message: error.message }
        : { code: 'INTERNAL', message: 'The agent run failed unexpectedly' };
      if (!isAppError(error)) deps.logger.error({ err: error, turnId: input.turnId }, 'agent run failed');
      log.emit({ type: 'error', ...state.error });
    }
  }

  await persistOutcome(deps, input, state, Date.now() - started);
  return state.status;
}

function limitReached(spec: ResolvedAgent['spec'], state: RunState): string | null {
  if (state.iterations >= spec.maxIterations) return `Stopped after max_iterations (${spec.maxIterations}) model calls`;
  const { requestLimit, totalTokensLimit } = spec.limits;
  if (requestLimit && state.usage.requests >= requestLimit) return `Stopped at limits.request_limit (${requestLimit})`;
  const tokens = state.usage.inputTokens + state.usage.outputTokens;
  if (totalTokensLimit && tokens >= totalTokensLimit) return `Stopped at limits.total_tokens_limit (${totalTokensLimit}); used ${tokens}`;
  return null;
}

function sumCalls(calls: Prisma.LlmCallCreateManyInput[], field: 'inputTokens' | 'outputTokens'): number {
  return calls.reduce((sum, c) => sum + (c[field] ?? 0), 0);
}

async function persistOutcome(deps: RunnerDeps, input: RunInput, state: RunState, latencyMs: number) {
  const content = state.text || null;
  await input.log.finish(
    { type: 'final', status: state.status, content, sources: state.sources, usage: state.usage },
    async (tx) => {
      const assistant: NewMessage[] = content
        ? [
            {
              type: 'assistant',
              content,
              inputTokens: state.usage.inputTokens,
              outputTokens: state.usage.outputTokens,
              latencyMs,
              model: input.model.id,
              agentName: input.agent.name,
              turnId: input.turnId,
              metadata: { status: state.status, ...(Object.keys(state.metadata).length ? { notes: state.metadata } : {}) } as Prisma.InputJsonObject,
            },
          ]
        : [];
      const stored = await appendMessages(tx, input.session, [...state.rows, ...assistant]);
      const final = content ? stored[stored.length - 1] : undefined;
      await tx.turn.update({
        where: { id: input.turnId },
        data: {
          status: state.status,
          iterations: state.iterations,
          toolCallsLog: state.toolLog as unknown as Prisma.InputJsonArray,
          usage: state.usage as unknown as Prisma.InputJsonObject,
          finalMessageId: final?.id ?? null,
          error: state.error ?? undefined,
          finishedAt: new Date(),
        },
      });
      if (state.llmCalls.length) await tx.llmCall.createMany({ data: state.llmCalls });
      await tx.session.update({ where: { id: input.session.id }, data: { updatedAt: new Date() } });
    },
  );
}
