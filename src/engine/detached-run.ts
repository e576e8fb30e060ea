import type { AgentContext } from '../auth/agent-context.js';
import { LimitExceededError, ModelError } from '../errors.js';
import type { UsageTotals } from '../events/agent-event.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { EngineDeps } from './engine-deps.js';
import { runAgentLoop } from './agent-loop.js';
import { requestScope } from './model-request.js';
import { structuredOutputSchema } from '../agents/prompt.js';
import type { ResolvedAgent } from '../agents/registry.js';
import { checkStructuredOutput } from './structured-output.js';
import { freshState, type ModelCallRecord } from './run-state.js';
import { storable } from '../events/storable.js';

export interface DetachedRunInput {
  agent: ResolvedAgent;
  /** The agent's own model (or the default) when absent. */
  model?: ChatModel;
  ctx: AgentContext;
  content: string;
  /** The background job this run belongs to: memory its tools write records it as the source. */
  jobId?: string | null;
  /** What each model call is recorded as in llm_calls (router, dreaming, evaluator, classify, draft; extract records its own). */
  callType: string;
  signal?: AbortSignal;
}

export interface DetachedRunResult {
  /** The answer's text (for a structured agent, the JSON as sent). */
  text: string;
  /** The validated JSON object of a structured agent. */
  output: Record<string, unknown> | null;
  usage: UsageTotals;
  model: string;
}

/**
 * Runs an agent once outside any session or turn: the routing classifier, evaluators, dreaming.
 * The same loop and tools as a turn, with nothing streamed or stored; a tool that needs a human
 * decision or another agent is refused (nobody is there to decide). A structured agent's answer
 * must match its properties (the loop asks once for a repair), else MODEL_ERROR.
 */
export async function runDetached(
  deps: Pick<EngineDeps, 'tools' | 'models' | 'prisma' | 'logger' | 'settings'>,
  input: DetachedRunInput,
): Promise<DetachedRunResult> {
  const { agent, ctx } = input;
  const model = input.model ?? deps.models.resolve(agent.spec.model ?? null);
  const state = freshState(agent, ctx, [], input.content);
  const outcome = await runAgentLoop({
    agent,
    model,
    tools: deps.tools,
    state,
    signal: input.signal ?? new AbortController().signal,
    request: requestScope({ ...ctx, addedInstruction: null }, null),
    gatedTools: new Set(),
    maxToolCallsPerResponse: deps.settings.maxToolCallsPerResponse,
    ports: {
      emit: () => {},
      delegate: () => Promise.reject(new LimitExceededError('ask_agent is not available to background runs')),
      toolContext: { agent: state.context, prisma: deps.prisma, turnId: null, sessionId: null, jobId: input.jobId ?? null, agentName: agent.name },
      onUnexpected: (error) => deps.logger.error({ err: error, agent: agent.name }, 'background agent run failed'),
      // No turn to record model calls on: each is a row of its own, named by what it was for.
      modelCalled: (call) => recordLlmCall(deps.prisma, ctx, input.callType, call),
    },
  });
  if (outcome.kind === 'paused') throw new ModelError(`${agent.name} asked for a tool that needs a human decision, which background runs cannot get`);
  if (outcome.status !== 'COMPLETED') throw new ModelError(`${agent.name} did not finish: ${outcome.error?.message ?? outcome.status}`);
  return { text: state.text, output: agent.spec.structuredOutput ? structuredOutput(agent, state.text) : null, usage: state.usage, model: model.id };
}

/** One model call made outside a turn, as a row of llm_calls named by what it was for. */
export async function recordLlmCall(prisma: EngineDeps['prisma'], ctx: AgentContext, callType: string, call: ModelCallRecord): Promise<void> {
  const { request, ...rest } = call;
  await prisma.llmCall.create({
    data: { ...rest, request: request === null ? null : storable(request), callType, tenantId: ctx.tenantId, userId: ctx.userId },
  });
}

/** A structured agent's answer as the object its properties describe (the loop has checked it). */
function structuredOutput(agent: ResolvedAgent, text: string): Record<string, unknown> {
  const check = checkStructuredOutput(structuredOutputSchema(agent.spec)!.json_schema.schema, text);
  if (!check.ok) throw new ModelError(`${agent.name} answered with JSON that does not match its schema: ${check.errors.join('; ')}`);
  return check.value as Record<string, unknown>;
}
