/**
 * Regressions: an experiment over a dataset of real turns (turn-datasets.ts) that replays each
 * example's source turn on a fork of its own conversation with the candidate's settings, and has
 * the evaluators judge both the original answer and the replay's.
 */
import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy } from '../auth/scope.js';
import type { Example, Experiment, ExperimentResult, Prisma, PrismaClient } from '../db/generated/client.js';
import { isAppError, NotFoundError, ValidationError } from '../errors.js';
import type { UsageTotals } from '../events/agent-event.js';
import { compareTurns, type TurnComparison } from '../turns/compare-turns.js';
import { parseInput } from '../validation.js';
import { queueExperiment, type ExperimentDeps } from './experiments.js';
import { sourceOf, type TurnSource } from './turn-source.js';

const regressionInput = z.object({
  datasetId: z.uuid('must be a dataset id'),
  agent: z.string().trim().min(1).max(64).nullish(),
  agentVersion: z.int().min(1, 'must be at least 1').nullish(),
  model: z.string().trim().min(1).max(200).nullish(),
  overrides: z
    .object({
      temperature: z.number().min(0, 'must be between 0 and 2').max(2, 'must be between 0 and 2').nullish(),
      systemPromptSuffix: z.string().trim().max(4000, 'must be at most 4000 characters').nullish(),
    })
    .nullish(),
  evaluators: z.array(z.string().trim().min(1).max(64)).min(1, 'name at least one evaluator').max(10),
  concurrency: z.int().min(1).max(10).nullish(),
});
export type RunRegressionInput = z.input<typeof regressionInput>;

/**
 * Queues a regression over a dataset of turns: the candidate is each turn's own agent and model
 * unless `agent`, `agentVersion` or `model` say otherwise. A candidate agent (version) that does not
 * exist, or a dataset with an example not taken from a turn, is VALIDATION_FAILED and stores nothing.
 */
export async function runRegression(deps: ExperimentDeps, ctx: AgentContext, raw: RunRegressionInput): Promise<Experiment> {
  const input = parseInput(regressionInput, raw, ['input']);
  const examples = await deps.prisma.example.findMany({
    where: { datasetId: input.datasetId, dataset: ownedBy({ ...ctx, isAdmin: false }) },
    select: { source: true },
  });
  const agents = [...new Set(examples.map((e) => sourceOf(e)?.agent ?? ''))].filter(Boolean);
  const candidates = input.agent ? [input.agent] : agents;
  for (const name of candidates) {
    try {
      await deps.agents.load(ctx, name, input.agentVersion);
    } catch (error) {
      if (!isAppError(error) || error.code !== 'NOT_FOUND') throw error;
      const at = input.agentVersion != null ? 'agentVersion' : 'agent';
      const message = input.agentVersion != null ? `${name} has no version ${input.agentVersion}` : `no agent ${name}`;
      throw new ValidationError(`input.${at}: ${message}`, [{ path: ['input', at], message }]);
    }
  }
  const overrides = { ...input.overrides, agent: input.agent, agentVersion: input.agentVersion, model: input.model };
  return queueExperiment(
    deps,
    ctx,
    input,
    { agent: candidates.join(', '), agentVersion: input.agentVersion ?? null, regression: true, overrides: overrides as Prisma.InputJsonObject },
    (rows) => {
      if (rows.some((e) => !e.sourceTurnId))
        throw new ValidationError('input.datasetId: has examples not taken from turns (make it with createDatasetFromTurns)', [
          { path: ['input', 'datasetId'], message: 'has examples not taken from turns' },
        ]);
    },
  );
}

export type Verdict = 'IMPROVED' | 'REGRESSED' | 'UNCHANGED';

/** One side of a regression example: what the original turn or the candidate answered and spent. */
export interface RegressionSide {
  output: string | null;
  toolCalls: TurnSource['toolCalls'];
  usage: UsageTotals;
  latencyMs: number | null;
  /** Evaluator name → its structured output for this side. */
  scores: Record<string, unknown>;
}

export interface RegressionExample {
  example: Example;
  result: ExperimentResult;
  original: RegressionSide;
  /** Null until the example has run. */
  candidate: RegressionSide | null;
  /** Answer diff and tool-call changes, original → candidate; null while either turn is missing. */
  comparison: TurnComparison | null;
  /** Null until the example has run. */
  verdict: Verdict | null;
}

export interface RegressionSummary {
  total: number;
  finished: number;
  improved: number;
  regressed: number;
  unchanged: number;
  /** Over the finished examples: tokens (input + output) and latency of the originals and the candidates. */
  tokensA: number;
  tokensB: number;
  latencyMsA: number;
  latencyMsB: number;
}

export interface Regression {
  experiment: Experiment;
  examples: RegressionExample[];
  summary: RegressionSummary;
}

/** A regression's report (NOT_FOUND for an experiment that is not the caller's regression). */
export async function regressionReport(deps: { prisma: PrismaClient }, ctx: AgentContext, experimentId: string): Promise<Regression> {
  const experiment = await deps.prisma.experiment.findFirst({
    where: { id: experimentId, regression: true, ...ownedBy({ ...ctx, isAdmin: false }) },
    include: { results: { orderBy: { ord: 'asc' }, include: { example: true } } },
  });
  if (!experiment) throw new NotFoundError('Experiment');
  const { results, ...row } = experiment;
  const examples = await Promise.all(
    results.map(async ({ example, ...result }): Promise<RegressionExample> => {
      const source = sourceOf(example);
      const original: RegressionSide = {
        output: source?.answer ?? null,
        toolCalls: source?.toolCalls ?? [],
        usage: source?.usage ?? { inputTokens: 0, outputTokens: 0, requests: 0 },
        latencyMs: source?.latencyMs ?? null,
        scores: result.baselineScores as Record<string, unknown>,
      };
      const comparison = result.turnId && example.sourceTurnId ? await compared(deps, ctx, example.sourceTurnId, result.turnId) : null;
      const ran = result.status === 'DONE' || result.status === 'ERROR';
      const usage = (result.usage ?? {}) as { agent?: UsageTotals };
      const candidate: RegressionSide | null = ran
        ? {
            output: result.output,
            toolCalls: comparison?.b.toolCalls ?? [],
            usage: usage.agent ?? { inputTokens: 0, outputTokens: 0, requests: 0 },
            latencyMs: comparison?.b.latencyMs ?? null,
            scores: result.scores as Record<string, unknown>,
          }
        : null;
      return { example, result, original, candidate, comparison, verdict: ran ? verdictOf(experiment.evaluators, result.status, original, candidate!) : null };
    }),
  );
  return { experiment: row, examples, summary: summarize(examples) };
}

/** The source turn may have been deleted since: then there is nothing to compare with. */
async function compared(deps: { prisma: PrismaClient }, ctx: AgentContext, a: string, b: string): Promise<TurnComparison | null> {
  try {
    return await compareTurns(deps, ctx, a, b);
  } catch (error) {
    if (isAppError(error) && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

/**
 * By the evaluators: each one votes up or down, by its `pass` when that changed, else by the sum of
 * its numeric scores' changes; the votes' sum decides. A candidate that failed has regressed.
 */
function verdictOf(evaluators: string[], status: ExperimentResult['status'], a: RegressionSide, b: RegressionSide): Verdict {
  if (status === 'ERROR') return 'REGRESSED';
  let votes = 0;
  for (const evaluator of evaluators) {
    const sa = asScores(a.scores[evaluator]);
    const sb = asScores(b.scores[evaluator]);
    if (typeof sa.pass === 'boolean' && typeof sb.pass === 'boolean' && sa.pass !== sb.pass) {
      votes += sb.pass ? 1 : -1;
      continue;
    }
    let delta = 0;
    for (const [name, value] of Object.entries(sb)) {
      const before = sa[name];
      if (typeof value === 'number' && typeof before === 'number') delta += value - before;
    }
    votes += Math.sign(Math.round(delta * 1e9));
  }
  return votes > 0 ? 'IMPROVED' : votes < 0 ? 'REGRESSED' : 'UNCHANGED';
}

function asScores(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function summarize(examples: RegressionExample[]): RegressionSummary {
  const finished = examples.filter((e) => e.candidate);
  const tokens = (u: UsageTotals) => u.inputTokens + u.outputTokens;
  const sum = (values: number[]) => values.reduce((x, y) => x + y, 0);
  return {
    total: examples.length,
    finished: finished.length,
    improved: finished.filter((e) => e.verdict === 'IMPROVED').length,
    regressed: finished.filter((e) => e.verdict === 'REGRESSED').length,
    unchanged: finished.filter((e) => e.verdict === 'UNCHANGED').length,
    tokensA: sum(finished.map((e) => tokens(e.original.usage))),
    tokensB: sum(finished.map((e) => tokens(e.candidate!.usage))),
    latencyMsA: sum(finished.map((e) => e.original.latencyMs ?? 0)),
    latencyMsB: sum(finished.map((e) => e.candidate!.latencyMs ?? 0)),
  };
}
