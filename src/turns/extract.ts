import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ModelError, ValidationError } from '../errors.js';
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
import { recordLlmCall } from '../engine/detached-run.js';
import { extractionSource, type ExtractionSource } from '../documents/extraction-source.js';
import type { SearchDeps } from '../documents/search.js';

/** Primitive result types (the seed's str, int, float, bool and lists of them), besides a JSON Schema. */
export const EXTRACT_TYPES = ['STRING', 'INTEGER', 'NUMBER', 'BOOLEAN', 'STRING_LIST', 'INTEGER_LIST', 'NUMBER_LIST', 'BOOLEAN_LIST'] as const;
type ExtractType = (typeof EXTRACT_TYPES)[number];

const extractInput = z.object({
  agent: z.string().trim().min(1).max(64),
  /** The text to extract from; with `document` or `corpus`, what to extract (the prompt). */
  content: z.string().trim().min(1, 'must not be empty').max(100_000, 'must be at most 100000 characters'),
  /** Extract from a stored document (row id) or corpus instead of from `content` alone. */
  document: z.string().uuid().nullish(),
  corpus: z.string().uuid().nullish(),
  schema: z
    .record(z.string(), z.unknown())
    .refine((s) => JSON.stringify(s).length <= 65_536, 'must be at most 64 KiB of JSON')
    .nullish(),
  type: z.enum(EXTRACT_TYPES).nullish(),
  model: z.string().trim().min(1).max(200).nullish(),
  /** Replaces the agent's prompt and the verification instructions. */
  systemPrompt: z.string().trim().min(1).max(20_000, 'must be at most 20000 characters').nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  maxTokens: z.number().int().min(1).max(1_000_000).nullish(),
  /** Guidance sent with the request (where to look, what the document is). */
  extraContext: z.string().trim().min(1).max(20_000, 'must be at most 20000 characters').nullish(),
  /** A reply that does not match (after the repair round) or a failing model gives null data, not an error. */
  nullOnFailure: z.boolean().nullish(),
});

/**
 * The seed's default verification behaviour for extraction: read the actual text, no placeholder
 * values, null for what is missing. A caller's `systemPrompt` replaces it.
 */
const VERIFICATION_PROMPT = [
  'Extract the requested data from the provided text only. Before answering, verify each value against the text:',
  '- Every value must appear in, or follow directly from, the text. Do not invent or assume values.',
  '- Never use placeholder values such as "N/A", "Not Available", "Unknown", "TBD" or empty strings, unless that exact text appears in the document.',
  '- When the text does not contain a value, return null for it.',
].join('\n');

export type ExtractInput = z.input<typeof extractInput>;

export interface ExtractOutcome {
  data: unknown;
  model: string;
  usage: UsageTotals;
  /** What was read from storage (document or corpus); null for inline content. */
  source: Omit<ExtractionSource, 'text'> | null;
  /** Why the data is null (`nullOnFailure`); null when the extraction succeeded. */
  failure: string | null;
}

/**
 * One-shot structured extraction (OpenContracts' `structured_response`): the agent's instructions
 * with the seed's verification prompt (or the caller's `systemPrompt`), the content or what is
 * stored of a document or corpus (see extractionSource), and a JSON Schema: the caller's, a
 * primitive `type`'s, or the agent's own output schema. The reply is validated; a mismatch gets
 * one repair round, then VALIDATION_FAILED with the errors (null data with `nullOnFailure`).
 * Nothing is stored but its model calls (llm_calls rows of call type `extract`): no session, turn or message. It spends the caller's turn
 * quota like a turn does, and is refused (RATE_LIMITED) before any model call when that is used up.
 */
export async function extract(
  deps: Pick<EngineDeps, 'agents' | 'models' | 'prisma'> & { quota: TurnQuota } & SearchDeps,
  ctx: AgentContext,
  raw: ExtractInput,
): Promise<ExtractOutcome> {
  const input = parseInput(extractInput, raw, ['input']);
  const agent = await deps.agents.load(ctx, input.agent);
  if (input.type && input.schema) throw refuse('type', 'give a type or a schema, not both');
  const custom = input.type ? typeSchema(input.type) : (input.schema as JsonSchema | null | undefined);
  const schema = custom ?? structuredOutputSchema(agent.spec)?.json_schema.schema;
  if (!schema) throw refuse('schema', `agent ${agent.name} has no output schema (structured_output); pass a schema or a type`);
  const problem = input.schema ? schemaProblem(schema) : null;
  if (problem) throw refuse('schema', `not a usable JSON Schema: ${problem}`);
  if (input.maxTokens != null && agent.spec.maxTokens !== undefined && input.maxTokens > agent.spec.maxTokens) {
    throw refuse('maxTokens', `must be at most the agent's max_tokens (${agent.spec.maxTokens})`);
  }
  const from =
    input.document || input.corpus
      ? await extractionSource(deps, ctx, { documentId: input.document ?? null, corpusId: input.corpus ?? null }, input.content)
      : null;
  const model = deps.models.resolve(input.model ?? ctx.defaultModel ?? agent.spec.model ?? null);
  const request = modelRequest({
    systemPrompt: input.systemPrompt ?? `${buildSystemPrompt({ ...agent.spec, structuredOutput: true })}\n\n${VERIFICATION_PROMPT}`,
    instructions: buildRequestInstructions({ now: new Date(), userId: ctx.userId, agentName: agent.name, addedInstruction: ctx.addedInstruction }),
    conversation: [
      ...(input.extraContext ? [{ role: 'system' as const, content: `Additional context:\n${input.extraContext}` }] : []),
      { role: 'user', content: from ? `${from.text}\n\n---\n\n${input.content}` : input.content },
    ],
    tools: [],
    responseFormat: { type: 'json_schema', json_schema: { name: agent.name.replace(/[^a-zA-Z0-9_-]/g, '_'), schema } },
    sampling: { temperature: input.temperature ?? agent.spec.temperature, maxTokens: input.maxTokens ?? agent.spec.maxTokens },
  });
  await deps.quota.admitRequest(ctx);
  const usage: UsageTotals = { inputTokens: 0, outputTokens: 0, requests: 0 };
  const source = from ? { mode: from.mode, passages: from.passages } : null;
  try {
    const value = await validReply((req) => reply(deps, ctx, model, req, usage), request, schema);
    return { data: input.type ? (value as { value: unknown }).value : value, model: model.id, usage, source, failure: null };
  } catch (error) {
    if (!input.nullOnFailure || !(error instanceof ValidationError || error instanceof ModelError)) throw error;
    return { data: null, model: model.id, usage, source, failure: error.message };
  }
}

/** The reply as JSON valid against the schema, after one repair round at most. */
async function validReply(ask: (request: ChatRequest) => Promise<string>, request: ChatRequest, schema: JsonSchema): Promise<unknown> {
  let text = await ask(request);
  let check = checkStructuredOutput(schema, text);
  if (!check.ok) {
    request.messages.push({ role: 'assistant', content: text }, { role: 'user', content: repairInstruction(check.errors) });
    text = await ask(request);
    check = checkStructuredOutput(schema, text);
  }
  if (!check.ok) {
    throw new ValidationError(
      `The reply did not match the schema after one repair: ${check.errors.join('; ')}`,
      check.errors.map((message) => ({ path: ['data'], message })),
    );
  }
  return check.value;
}

const PRIMITIVES: Record<string, string> = { STRING: 'string', INTEGER: 'integer', NUMBER: 'number', BOOLEAN: 'boolean' };

/** A primitive type as the JSON Schema the model answers in: an object with one `value` (null when the text has none). */
function typeSchema(type: ExtractType): JsonSchema {
  const list = type.endsWith('_LIST');
  const item = PRIMITIVES[type.replace(/_LIST$/, '')]!;
  const value = list ? { type: ['array', 'null'], items: { type: item } } : { type: [item, 'null'] };
  return { type: 'object', properties: { value }, required: ['value'], additionalProperties: false } as JsonSchema;
}

function refuse(field: string, message: string): ValidationError {
  return new ValidationError(`input.${field}: ${message}`, [{ path: ['input', field], message }]);
}

/** The text of one model reply (the model is asked for JSON, so tool calls are not offered), recorded in llm_calls as `extract`. */
async function reply(
  deps: Pick<EngineDeps, 'prisma'>,
  ctx: AgentContext,
  model: ChatModel,
  request: ChatRequest,
  usage: ExtractOutcome['usage'],
): Promise<string> {
  let text = '';
  usage.requests += 1;
  let reported = null;
  let finishReason: string | null = null;
  let body: string | null = null;
  const started = Date.now();
  try {
    for await (const part of model.stream(request)) {
      if (part.type === 'request') body = part.body;
      if (part.type === 'text-delta') text += part.delta;
      if (part.type === 'finish') {
        reported = part.usage;
        finishReason = part.reason;
      }
    }
  } finally {
    const used = reported ?? (await estimateUsage(model.id, request, { text }));
    usage.inputTokens += used.inputTokens;
    usage.outputTokens += used.outputTokens;
    if (!reported) usage.estimated = true;
    await recordLlmCall(deps.prisma, ctx, 'extract', {
      provider: model.provider,
      model: model.model,
      iteration: usage.requests - 1,
      inputTokens: used.inputTokens,
      outputTokens: used.outputTokens,
      usageEstimated: !reported,
      latencyMs: Date.now() - started,
      finishReason,
      error: finishReason ? null : 'stream did not finish',
      request: body,
    });
  }
  return text;
}
