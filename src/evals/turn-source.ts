/** The real turn an example was taken from, as it was when the dataset was made. */
import { z } from 'zod';
import type { Example, PrismaClient, Turn } from '../db/generated/client.js';
import { emptyUsage } from '../engine/run-state.js';
import type { UsageTotals } from '../events/agent-event.js';
import { answeredMessage } from '../turns/answered-message.js';

/** The most messages of the conversation before the turn an example keeps. */
const MAX_CONTEXT_MESSAGES = 200;

const turnSource = z.object({
  turnId: z.string(),
  sessionId: z.string(),
  agent: z.string(),
  agentVersion: z.number().nullable(),
  model: z.string().nullable(),
  /** The conversation before the user message, oldest first. */
  context: z.array(z.object({ type: z.string(), content: z.string().nullable(), toolName: z.string().nullable() })),
  answer: z.string().nullable(),
  toolCalls: z.array(z.object({ name: z.string(), arguments: z.unknown(), result: z.unknown(), isError: z.boolean() })),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), requests: z.number(), estimated: z.boolean().optional() }),
  latencyMs: z.number().nullable(),
});

export type TurnSource = z.output<typeof turnSource>;

/** An example's source turn; null for an example written by hand. */
export function sourceOf(example: Pick<Example, 'source'>): TurnSource | null {
  const parsed = turnSource.safeParse(example.source);
  return parsed.success ? parsed.data : null;
}

/** What an example keeps of an ended top-level turn: its question, the conversation before it, and what it did. */
export async function snapshotTurn(
  prisma: PrismaClient,
  turn: Turn & { finalMessage: { content: string | null } | null },
): Promise<{ input: string; source: TurnSource }> {
  const asked = await answeredMessage(prisma, turn);
  const before = await prisma.message.findMany({
    where: { sessionId: turn.sessionId, seq: { lt: asked.seq } },
    orderBy: { seq: 'desc' },
    take: MAX_CONTEXT_MESSAGES,
    select: { type: true, content: true, toolName: true },
  });
  const log = (turn.toolCallsLog ?? []) as { tool: string; arguments: unknown; result: unknown; isError?: boolean }[];
  return {
    input: asked.content,
    source: {
      turnId: turn.id,
      sessionId: turn.sessionId,
      agent: turn.agent,
      agentVersion: turn.agentVersion,
      model: turn.model,
      context: before.reverse(),
      answer: turn.finalMessage?.content ?? null,
      toolCalls: log.map((entry) => ({ name: entry.tool, arguments: entry.arguments ?? null, result: entry.result ?? null, isError: entry.isError === true })),
      usage: { ...emptyUsage(), ...(turn.usage as Partial<UsageTotals>) },
      latencyMs: turn.finishedAt ? turn.finishedAt.getTime() - turn.startedAt.getTime() : null,
    },
  };
}
