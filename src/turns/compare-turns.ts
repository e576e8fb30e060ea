import { isDeepStrictEqual } from 'node:util';
import type { AgentContext } from '../auth/agent-context.js';
import { visibleTo } from '../auth/scope.js';
import type { PrismaClient, Turn } from '../db/generated/client.js';
import type { Source, UsageTotals } from '../events/agent-event.js';
import { finalEvents } from '../events/event-log.js';
import { NotFoundError } from '../errors.js';
import { emptyUsage } from '../engine/run-state.js';
import { diffSequences } from './sequence-diff.js';

/** What of a turn a comparison reads. */
export interface TurnOutcome {
  turn: Turn;
  /** The final answer (null when the turn gave none, or has not ended). */
  text: string | null;
  toolCalls: { name: string; arguments: unknown; result: unknown; isError: boolean }[];
  sources: Source[];
  usage: UsageTotals;
  /** From start to end; null while the turn has not ended. */
  latencyMs: number | null;
  /** The model of each model call, in order. */
  models: string[];
}

export type ChangeOp = 'SAME' | 'ADDED' | 'REMOVED' | 'CHANGED';

export interface LineChange {
  op: Exclude<ChangeOp, 'CHANGED'>;
  text: string;
}

/** A tool call of either turn, paired with the other turn's call of the same name at the same place when there is one. */
export interface ToolCallChange {
  op: ChangeOp;
  name: string;
  /** Argument keys whose values differ (empty unless CHANGED). */
  changedArguments: string[];
  argumentsA: unknown;
  argumentsB: unknown;
  resultChanged: boolean;
  resultA: unknown;
  resultB: unknown;
}

export interface TurnComparison {
  a: TurnOutcome;
  b: TurnOutcome;
  text: LineChange[];
  textChanged: boolean;
  toolCalls: ToolCallChange[];
  sourcesAdded: Source[];
  sourcesRemoved: Source[];
}

/** Compares two turns the caller can see (NOT_FOUND otherwise): answer, tool calls, sources, usage, latency, model calls. */
export async function compareTurns(deps: { prisma: PrismaClient }, ctx: AgentContext, a: string, b: string): Promise<TurnComparison> {
  const [outcomeA, outcomeB] = await Promise.all([turnOutcome(deps.prisma, ctx, a), turnOutcome(deps.prisma, ctx, b)]);
  return diffOutcomes(outcomeA, outcomeB);
}

async function turnOutcome(prisma: PrismaClient, ctx: AgentContext, id: string): Promise<TurnOutcome> {
  const turn = await prisma.turn.findFirst({
    where: { id, ...visibleTo(ctx) },
    include: {
      finalMessage: { select: { content: true } },
      llmCalls: { orderBy: [{ createdAt: 'asc' }, { iteration: 'asc' }], select: { provider: true, model: true } },
    },
  });
  if (!turn) throw new NotFoundError('Turn', id);
  const { finalMessage, llmCalls, ...row } = turn;
  const final = (await finalEvents(prisma, [turn.id])).get(turn.id);
  const log = (row.toolCallsLog ?? []) as { tool: string; arguments: unknown; result: unknown; isError?: boolean }[];
  return {
    turn: row,
    text: final?.content ?? finalMessage?.content ?? null,
    toolCalls: log.map((entry) => ({ name: entry.tool, arguments: entry.arguments, result: entry.result, isError: entry.isError === true })),
    sources: final?.sources ?? [],
    usage: { ...emptyUsage(), ...(row.usage as Partial<UsageTotals>) },
    latencyMs: row.finishedAt ? row.finishedAt.getTime() - row.startedAt.getTime() : null,
    models: llmCalls.map((call) => (call.provider === 'demo' ? 'demo' : `${call.provider}:${call.model}`)),
  };
}

/** The diff of two turn outcomes (pure). */
export function diffOutcomes(a: TurnOutcome, b: TurnOutcome): TurnComparison {
  const text = diffSequences(linesOf(a.text), linesOf(b.text), (x, y) => x === y).map((step): LineChange =>
    step.op === 'ADDED' ? { op: 'ADDED', text: step.b } : { op: step.op, text: step.a },
  );
  const toolCalls = diffSequences(a.toolCalls, b.toolCalls, (x, y) => x.name === y.name).map((step): ToolCallChange => {
    const x = step.op === 'ADDED' ? undefined : step.a;
    const y = step.op === 'REMOVED' ? undefined : step.b;
    const changedArguments = x && y ? changedKeys(x.arguments, y.arguments) : [];
    const argumentsDiffer = x && y ? !isDeepStrictEqual(x.arguments, y.arguments) : false;
    const resultChanged = x && y ? !isDeepStrictEqual(x.result, y.result) || x.isError !== y.isError : false;
    return {
      op: step.op === 'SAME' && (argumentsDiffer || resultChanged) ? 'CHANGED' : step.op,
      name: (x ?? y)!.name,
      changedArguments,
      argumentsA: x?.arguments ?? null,
      argumentsB: y?.arguments ?? null,
      resultChanged,
      resultA: x?.result ?? null,
      resultB: y?.result ?? null,
    };
  });
  const keysA = new Set(a.sources.map((s) => s.key));
  const keysB = new Set(b.sources.map((s) => s.key));
  return {
    a,
    b,
    text,
    textChanged: a.text !== b.text,
    toolCalls,
    sourcesAdded: b.sources.filter((s) => !keysA.has(s.key)),
    sourcesRemoved: a.sources.filter((s) => !keysB.has(s.key)),
  };
}

function linesOf(text: string | null): string[] {
  return text === null || text === '' ? [] : text.split('\n');
}

/** The keys, in order of first appearance, whose values differ between two argument objects. */
function changedKeys(x: unknown, y: unknown): string[] {
  const ox = asRecord(x);
  const oy = asRecord(y);
  const keys = [...new Set([...Object.keys(ox), ...Object.keys(oy)])];
  return keys.filter((key) => !(Object.hasOwn(ox, key) && Object.hasOwn(oy, key) && isDeepStrictEqual(ox[key], oy[key])));
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
