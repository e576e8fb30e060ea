import { z } from 'zod';
import type { AgentContext } from '../../auth/agent-context.js';
import { ValidationError } from '../../errors.js';
import { rowIdOrUuid } from '../global-ids.js';
import { parseInput } from '../../validation.js';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const messageContent = z.union([z.string(), z.array(z.union([textPart, z.object({ type: z.string() }).passthrough()]))]).nullish();

const body = z.object({
  model: z.string().trim().min(1, 'must name an agent, e.g. "general" or "general@openai:gpt-4.1-mini"').max(300),
  messages: z
    .array(z.object({ role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']), content: messageContent }).passthrough())
    .min(1, 'must hold at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).passthrough().nullish(),
  user: z.string().max(200).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

/** What a chat completions request asks of the engine. */
export interface CompletionRequest {
  /** As sent: echoed in every response. */
  model: string;
  agent: string;
  /** `provider:model` after the agent's `@`, if any. */
  modelOverride: string | null;
  /** The session to continue; null starts a new one. */
  sessionId: string | null;
  /** The last user message: the turn's input. */
  content: string;
  /** The request's system/developer messages, given to the agent for this turn only. */
  instruction: string | null;
  stream: boolean;
  includeUsage: boolean;
}

/**
 * Reads an OpenAI chat completions body. The session keeps the conversation, so only the last
 * message (which must be the user's) starts the turn; earlier user/assistant messages are what the
 * client already saw and are not stored again. A session is named (by its GraphQL ID or bare UUID) in
 * `metadata.session_id`, in `user` when that holds a session id, or in the X-Session-Id header.
 */
export function parseCompletionRequest(raw: unknown, ctx: AgentContext): CompletionRequest {
  const input = parseInput(body, raw);
  const last = input.messages.at(-1)!;
  if (last.role !== 'user') throw invalid(['messages', input.messages.length - 1, 'role'], 'the last message must be the user’s');
  const content = textOf(last.content, ['messages', input.messages.length - 1, 'content']).trim();
  if (!content) throw invalid(['messages', input.messages.length - 1, 'content'], 'must not be empty');
  const instruction = input.messages
    .map((m, i) => (m.role === 'system' || m.role === 'developer' ? textOf(m.content, ['messages', i, 'content']) : ''))
    .filter(Boolean)
    .join('\n\n');

  const at = input.model.indexOf('@');
  const agent = at === -1 ? input.model : input.model.slice(0, at);
  const modelOverride = at === -1 ? null : input.model.slice(at + 1);
  if (!agent) throw invalid(['model'], 'names no agent before "@"');
  if (modelOverride === '') throw invalid(['model'], 'names no model after "@"');

  const sessionId = sessionOf(input, ctx);

  return {
    model: input.model,
    agent,
    modelOverride,
    sessionId,
    content,
    instruction: [ctx.addedInstruction, instruction].filter(Boolean).join('\n\n') || null,
    stream: input.stream === true,
    includeUsage: input.stream_options?.include_usage === true,
  };
}

function sessionOf(input: z.infer<typeof body>, ctx: AgentContext): string | null {
  const named = input.metadata?.session_id;
  if (named !== undefined) {
    const id = typeof named === 'string' ? rowIdOrUuid(named, 'Session') : null;
    if (!id) throw invalid(['metadata', 'session_id'], 'must be a session id');
    return id;
  }
  // `user` is often an end-user label rather than a session: only a session id counts.
  const fromUser = input.user ? rowIdOrUuid(input.user, 'Session') : null;
  if (fromUser) return fromUser;
  if (!ctx.sessionId) return null;
  const fromHeader = rowIdOrUuid(ctx.sessionId, 'Session');
  if (!fromHeader) throw invalid(['X-Session-Id'], 'must be a session id');
  return fromHeader;
}

function textOf(content: z.infer<typeof messageContent>, path: (string | number)[]): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, i) => {
      if (part.type !== 'text') throw invalid([...path, i, 'type'], `"${part.type}" parts are not supported; send text`);
      return (part as z.infer<typeof textPart>).text;
    })
    .join('');
}

function invalid(path: (string | number)[], message: string): ValidationError {
  return new ValidationError(`${path.join('.')}: ${message}`, [{ path, message }]);
}
