import type { AgentContext } from '../auth/agent-context.js';
import { readStored, type StoredContext } from './stored-context.js';
import type { ChatMessage, ChatModel, ChatRequest } from '../llm/chat-model.js';
import { requestOverhead, TOKEN_CEILING, tokenCounterFor, type TokenCounter } from '../llm/token-count.js';
import { contextMessage } from '../sessions/messages.js';
import { profileKey } from '../sessions/user-profile.js';
import type { EngineDeps } from './engine-deps.js';
import type { RunState } from './run-state.js';
import { requestScope, turnRequest, type SessionFacts } from './model-request.js';
import type { ResolvedAgent } from '../agents/registry.js';
import type { StoredHistory } from './request-history.js';

export interface TurnContextInput {
  ctx: AgentContext;
  /** The session the turn runs in (its name, metadata and routing go into the request context). */
  session: SessionFacts;
  agent: ResolvedAgent;
  model: ChatModel;
  /** The turn's fresh state (its system prompt and message, the caller's overrides): the request counted is the one built from it. */
  state: Pick<RunState, 'messages' | 'overrides'>;
  /** Only messages before this position (the turn's own user message). */
  beforeSeq?: number;
  /**
   * The earlier conversation as a stateless caller sent it (OpenAI-compatible clients), oldest
   * first: read instead of the session's messages, cut to the same budget, never stored.
   */
  history?: ChatMessage[];
  /** Inject the user's profile and the session's recent moments (top-level turns). */
  withMemory: boolean;
  /** What the turn's start read already (storedContextColumns), with memory and the whole conversation before the turn. */
  stored?: StoredContext;
}

export interface TurnContext {
  /**
   * Labelled memory blocks (system messages), then the history that fits, oldest first. The blocks
   * are rebuilt for every turn and never stored (llm_calls keeps each request as sent).
   */
  messages: ChatMessage[];
  /** The session's messages the history among `messages` was read from (none: no history, or a caller's own). */
  history: StoredHistory | null;
  /** The turn's first model request with these messages, as the budget counted it (and the loop will build it). */
  request: ChatRequest;
}

/**
 * What a turn's model sees before the user's message: memory, then as much of the conversation as
 * fits the budget, newest first. Tokens are counted with the model's tokenizer over the whole
 * request (system prompt, request instructions, tool specs, response format, memory, the user's
 * message and the room kept for the reply) unless their ceiling (TOKEN_CEILING) fits already;
 * history gets what is left, up to its own cap. Earlier answers longer than HISTORY_COMPRESS_CHARS
 * are compressed head + tail around a REM LOOKUP breadcrumb for agents that can look them up (they
 * have the `search` tool); a caller's own history has nothing to look up, so it is never compressed.
 */
export async function contextFor(deps: Pick<EngineDeps, 'sql' | 'settings' | 'tools'>, input: TurnContextInput): Promise<TurnContext> {
  const withMemory = input.withMemory && deps.settings.memoryTokenBudget > 0;
  const stored =
    input.stored ?? (await readStored(deps.sql, input.ctx, input.session.id, { withMemory, withHistory: !input.history, beforeSeq: input.beforeSeq }));
  // Most requests are far from every budget: when nothing is left out at the ceiling, the model's
  // tokenizer (which never counts more) would leave nothing out either.
  const bounded = assemble(deps, input, stored, withMemory, TOKEN_CEILING);
  if (bounded.whole) return bounded;
  return assemble(deps, input, stored, withMemory, await tokenCounterFor(input.model.id));
}

/** The context as `counter` counts it, and whether nothing had to be left out or cut for its budgets. */
function assemble(
  { settings, tools: toolRegistry }: Pick<EngineDeps, 'settings' | 'tools'>,
  input: TurnContextInput,
  stored: StoredContext,
  withMemory: boolean,
  counter: TokenCounter,
): TurnContext & { whole: boolean } {
  const { agent, ctx, session, state } = input;
  const memory = withMemory ? memoryBlocks(settings.memoryTokenBudget, ctx, stored, counter) : { blocks: [], whole: true };
  const memoryMessages = memory.blocks.map((content): ChatMessage => ({ role: 'system', content }));
  const scope = requestScope(ctx, session);
  const now = new Date();
  const [system, ...asked] = state.messages;
  const requestWith = (context: ChatMessage[]) => turnRequest(agent, { ...state, messages: [system!, ...context, ...asked] }, toolRegistry, scope, now);
  const fixed = requestOverhead(counter, requestWith(memoryMessages));
  let budget = Math.min(settings.historyTokenBudget, settings.contextTokenBudget - fixed - (state.overrides?.maxTokens ?? agent.spec.maxTokens ?? 0));
  const compressAbove = agent.spec.tools.some((tool) => tool.name === 'search') ? settings.historyCompressChars : 0;
  const newestFirst = input.history ? input.history.toReversed() : stored.conversation.map((row) => contextMessage(session.id, row, compressAbove));
  const history: ChatMessage[] = [];
  for (const message of newestFirst) {
    budget -= counter.message(message);
    if (budget < 0) break;
    history.push(message);
  }
  const whole = memory.whole && history.length === newestFirst.length;
  // A tool result whose call was cut off would be refused by the provider.
  while (history.at(-1)?.role === 'tool') history.pop();
  const messages = [...memoryMessages, ...history.reverse()];
  const rows = input.history ? [] : stored.conversation.slice(0, history.length).reverse();
  const from: StoredHistory | null = rows.length
    ? {
        sessionId: session.id,
        at: memoryMessages.length,
        count: rows.length,
        from: rows[0]!.seq,
        to: rows.at(-1)!.seq,
        compressAbove,
        crumbs: rows.flatMap((row, i) => (row.crumb ? [i] : [])),
      }
    : null;
  return { messages, history: from, request: requestWith(messages), whole };
}

/**
 * The user's profile entity and the session's recent moments, each a labelled block cut to its
 * share of MEMORY_TOKEN_BUDGET (the profile gets half, the moments the rest).
 */
function memoryBlocks(total: number, ctx: AgentContext, { profile, moments }: StoredContext, counter: TokenCounter): { blocks: string[]; whole: boolean } {
  const key = ctx.userId ? profileKey(ctx.userId) : null;
  const blocks: string[] = [];
  let whole = true;
  const profileBudget = moments.length ? Math.floor(total / 2) : total;
  if (profile) {
    const lines = [profile.name, profile.summary, profile.content].filter((line): line is string => Boolean(line?.trim()));
    const block = fit(counter, `[Memory: user profile (REM LOOKUP "${key}")]`, lines, profileBudget);
    blocks.push(block.text);
    whole &&= block.whole;
  }
  if (moments.length) {
    const lines = moments.map((m) => {
      const when = m.startsAt ? ` (${minute(m.startsAt)}${m.endsAt ? ` to ${minute(m.endsAt)}` : ''})` : '';
      return `- ${m.name ?? m.key}${when}: ${(m.summary ?? m.content ?? '').trim()} [REM LOOKUP "${m.key}"]`;
    });
    const block = fit(counter, '[Memory: recent moments of this session, newest first]', lines, total - (profile ? counter.text(blocks[0]!) : 0));
    blocks.push(block.text);
    whole &&= block.whole;
  }
  return { blocks, whole };
}

/** A timestamp as JSON gives it (any offset) in UTC to the minute: `2025-01-31 14:05`. */
function minute(at: string): string {
  return new Date(at).toISOString().slice(0, 16).replace('T', ' ');
}

/** The label and as many whole lines as fit `budget` tokens (whole: all of them); a first line too long is cut. */
function fit(counter: TokenCounter, label: string, lines: string[], budget: number): { text: string; whole: boolean } {
  let text = label;
  for (const line of lines) {
    const next = `${text}\n${line}`;
    if (counter.text(next) <= budget) {
      text = next;
      continue;
    }
    if (text === label) {
      let cut = line;
      while (cut.length > 0 && counter.text(`${text}\n${cut}…`) > budget) cut = cut.slice(0, Math.floor(cut.length * 0.8));
      if (cut) text = `${text}\n${cut}…`;
    }
    return { text, whole: false };
  }
  return { text, whole: true };
}
