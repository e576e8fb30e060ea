import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ValidationError } from '../errors.js';
import type { UsageTotals } from '../events/agent-event.js';
import type { ChatModel, ChatRequest } from '../llm/chat-model.js';
import { estimateUsage } from '../llm/token-count.js';
import { parseInput } from '../validation.js';
import type { EngineDeps } from '../engine/engine-deps.js';
import type { TurnQuota } from '../engine/quota.js';
import { buildRequestInstructions, buildSystemPrompt, structuredOutputSchema } from '../agents/prompt.js';
import type { JsonSchema } from '../agents/spec.js';
import { checkStructuredOutput, repairInstruction, schemaProblem } from '../engine/structured-output.js';
import { modelRequest } from '../engine/model-request.js';

const extractInput = z.object({
  agent: z.string().trim().min(1).max(64),
  content: z.string().trim().min(1, 'must not be empty').max(100_000, 'must be at most 100000 characters'),
  schema: z
    .record(z.string(), z.unknown())
    .refine((s) => JSON.stringify(s).length <= 65_536, 'must be at most 64 KiB of JSON')
    .nullish(),
  model: z.string().trim().min(1).max(200).nullish(),
});

export type ExtractInput = z.input<typeof extractInput>;

export interface ExtractOutcome {
  data: unknown;
  model: string;
  usage: UsageTotals;
}

/**
 * One-shot structured extraction (OpenContracts' `structured_response`): the agent's instructions,
 * the content, and a JSON Schema (the caller's, or the agent's own output schema). The reply is
 * validated; a mismatch gets one repair round, then VALIDATION_FAILED with the errors. Nothing is
 * stored: no session, turn, message or model-call row. It spends the caller's turn quota like a
 * turn does, and is refused (RATE_LIMITED) before any model call when that is used up.
 */
export async function extract(
  deps: Pick<EngineDeps, 'agents' | 'models'> & { quota: TurnQuota },
  ctx: AgentContext,
  raw: ExtractInput,
): Promise<ExtractOutcome> {
  const input = parseInput(extractInput, raw, ['input']);
  const agent = await deps.agents.load(ctx, input.agent);
  const schema = (input.schema as JsonSchema | null | undefined) ?? structuredOutputSchema(agent.spec)?.json_schema.schema;
  if (!schema) {
    throw new ValidationError(`input.schema: agent ${agent.name} has no output schema (structured_output); pass one`, [
      { path: ['input', 'schema'], message: 'required for an agent without structured output' },
    ]);
  }
  const problem = input.schema ? schemaProblem(schema) : null;
  if (problem) {
    throw new ValidationError(`input.schema: not a usable JSON Schema: ${problem}`, [{ path: ['input', 'schema'], message: problem }]);
  }
  const model = deps.models.resolve(input.model ?? ctx.defaultModel ?? agent.spec.model ?? null);
  const request = modelRequest({
    systemPrompt: buildSystemPrompt({ ...agent.spec, structuredOutput: true }),
    instructions: buildRequestInstructions({ now: new Date(), userId: ctx.userId, agentName: agent.name, addedInstruction: ctx.addedInstruction }),
    conversation: [{ role: 'user', content: input.content }],
    tools: [],
    responseFormat: { type: 'json_schema', json_schema: { name: agent.name.replace(/[^a-zA-Z0-9_-]/g, '_'), schema } },
    sampling: { temperature: agent.spec.temperature, maxTokens: agent.spec.maxTokens },
  });
  await deps.quota.admitRequest(ctx);
  const usage: UsageTotals = { inputTokens: 0, outputTokens: 0, requests: 0 };
  let text = await reply(model, request, usage);
  let check = checkStructuredOutput(schema, text);
  if (!check.ok) {
    request.messages.push({ role: 'assistant', content: text }, { role: 'user', content: repairInstruction(check.errors) });
    text = await reply(model, request, usage);
    check = checkStructuredOutput(schema, text);
  }
  if (!check.ok) {
    throw new ValidationError(
      `The reply did not match the schema after one repair: ${check.errors.join('; ')}`,
      check.errors.map((message) => ({ path: ['data'], message })),
    );
  }
  return { data: check.value, model: model.id, usage };
}

/** The text of one model reply (the model is asked for JSON, so tool calls are not offered). */
async function reply(model: ChatModel, request: ChatRequest, usage: ExtractOutcome['usage']): Promise<string> {
  let text = '';
  usage.requests += 1;
  let reported = null;
  for await (const part of model.stream(request)) {
    if (part.type === 'text-delta') text += part.delta;
    if (part.type === 'finish') reported = part.usage;
  }
  const used = reported ?? (await estimateUsage(model.id, request, { text }));
  usage.inputTokens += used.inputTokens;
  usage.outputTokens += used.outputTokens;
  if (!reported) usage.estimated = true;
  return text;
}
