import type { Message, PrismaClient, Session } from '../db/generated/client.js';
import { ValidationError } from '../errors.js';
import type { ChatMessage, ToolCall } from '../llm/chat-model.js';
import type { RunState, TurnOpening } from '../engine/run-state.js';
import { answeredMessage } from './answered-message.js';
import type { SendInput } from './send-input.js';

type Assistant = Extract<ChatMessage, { role: 'assistant' }>;
type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/** How a turn opens, as `sendMessage` reads it from its input. */
export interface Opening {
  /** The user's message the turn answers: its session's title and routing, and stored unless `answering`. */
  content: string;
  opening: TurnOpening;
  /** The stateless caller's conversation before the opening. */
  history?: ChatMessage[];
  /** A session's stored user message the turn goes on answering (no message is stored again). */
  answering?: Message & { content: string };
  /** The caller's results as the session stores them, beside the calls they answer. */
  rows?: RunState['rows'];
}

/**
 * What a turn opens with: the user's message, or (`toolResults`) the results of the calls of the
 * caller's own tools that were handed back to it. A stateless caller's history ends with the
 * assistant message that made those calls; in a session, its last turn ended TOOL_CALLS and its
 * stored calls (with the results of the agent's tools that ran beside them) are what is answered.
 * Every handed-back call needs its result and every result a call: anything else is refused
 * before anything is stored.
 */
export async function openingOf(prisma: PrismaClient, input: SendInput, existing: Session | null): Promise<Opening> {
  const results = input.toolResults;
  if (!results) {
    if (!input.content) throw refuse(['content'], 'must not be empty');
    return { content: input.content, opening: input.content, history: input.history ?? undefined };
  }
  if (existing) return sessionOpening(prisma, existing, results);
  const history = input.history ?? [];
  const at = history.findLastIndex((m) => m.role === 'assistant');
  const calls = history[at];
  if (calls?.role !== 'assistant' || !calls.toolCalls?.length || at !== history.length - 1)
    throw refuse(['toolResults'], 'answer no tool calls: the history must end with the assistant message that made them');
  const asked = history.findLast((m) => m.role === 'user')?.content ?? input.content;
  if (!asked) throw refuse(['history'], 'holds no user message for the tool calls to answer');
  const callMessage: Assistant = { role: 'assistant', content: calls.content, toolCalls: calls.toolCalls };
  return { content: asked, history: history.slice(0, at), opening: { calls: callMessage, results: answering(calls.toolCalls, [], results) } };
}

/** The session's last turn's handed-back calls, answered by `results`. */
async function sessionOpening(prisma: PrismaClient, session: Session, results: NonNullable<SendInput['toolResults']>): Promise<Opening> {
  const last = await prisma.turn.findFirst({ where: { sessionId: session.id, parentId: null }, orderBy: { startedAt: 'desc' } });
  if (last?.status !== 'TOOL_CALLS') throw refuse(['toolResults'], 'answer no tool calls: the session’s last turn handed none back');
  const { made, calls, ran } = await lastCalls(prisma, last.id);
  const asked = await answeredMessage(prisma, last);
  const given = results.map((result) => ({
    type: 'tool_response' as const,
    content: result.content,
    toolCallId: result.toolCallId,
    toolName: calls.find((call) => call.id === result.toolCallId)?.name,
    agentName: last.agent,
  }));
  return {
    content: asked.content,
    answering: asked,
    opening: { calls: { role: 'assistant', content: made?.content ?? null, toolCalls: calls }, results: answering(calls, ran, results) },
    rows: given,
  };
}

/**
 * A turn's last model response's tool calls as stored (`made`: the tool_call row), with the results
 * of those the agent ran: at a TOOL_CALLS end, the others are the ones handed back.
 */
async function lastCalls(prisma: PrismaClient, turnId: string): Promise<{ made: Message | undefined; calls: ToolCall[]; ran: ToolMessage[] }> {
  const rows = await prisma.message.findMany({ where: { turnId, type: { in: ['tool_call', 'tool_response'] } }, orderBy: { seq: 'asc' } });
  const made = rows.findLast((row) => row.type === 'tool_call');
  const calls = (made?.toolCalls ?? []) as unknown as ToolCall[];
  const ran = rows
    .filter((row) => row.type === 'tool_response' && calls.some((call) => call.id === row.toolCallId))
    .map((row): ToolMessage => ({ role: 'tool', toolCallId: row.toolCallId!, content: row.content ?? '' }));
  return { made, calls, ran };
}

/** The calls a turn that ended TOOL_CALLS handed back to its caller, and what its model said with them. */
export async function handedBackCalls(prisma: PrismaClient, turnId: string): Promise<{ text: string | null; calls: ToolCall[] }> {
  const { made, calls, ran } = await lastCalls(prisma, turnId);
  return { text: made?.content || null, calls: calls.filter((call) => !ran.some((result) => result.toolCallId === call.id)) };
}

/** The results in call order, when `results` answer exactly the calls `ran` did not. */
function answering(calls: ToolCall[], ran: ToolMessage[], results: NonNullable<SendInput['toolResults']>): ToolMessage[] {
  const open = new Set(calls.map((call) => call.id).filter((id) => !ran.some((r) => r.toolCallId === id)));
  const given = new Map<string, string>();
  results.forEach((result, i) => {
    if (!open.has(result.toolCallId) || given.has(result.toolCallId))
      throw refuse(
        ['toolResults', i, 'toolCallId'],
        `answers no tool call handed back: "${result.toolCallId}" is not one of ${[...open].join(', ') || 'none'}`,
      );
    given.set(result.toolCallId, result.content);
  });
  const missing = [...open].find((id) => !given.has(id));
  if (missing) throw refuse(['toolResults'], `has no result for tool call "${missing}"`);
  return calls.map((call): ToolMessage => ran.find((r) => r.toolCallId === call.id) ?? { role: 'tool', toolCallId: call.id, content: given.get(call.id)! });
}

function refuse(path: (string | number)[], message: string): ValidationError {
  const at = ['input', ...path];
  return new ValidationError(`${at.join('.')}: ${message}`, [{ path: at, message }]);
}
