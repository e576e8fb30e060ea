/**
 * Experiments: an agent run on every example of a dataset, each output judged by evaluator agents
 * (`kind: evaluator`, structured output). They run as background jobs: one job per experiment,
 * which claims the experiment's examples one by one (a conditional UPDATE per example, up to
 * `concurrency` at a time) and stores each result with its scores and usage as it finishes. A job
 * stopped by a shutdown finishes the examples it started and hands the rest back, so after a
 * restart every example has been run once. The agent runs on each example as an ephemeral eval
 * turn (eval-turn.ts): a real turn that never enters a user's sessions; evaluators are background
 * runs (no session, no turn). Eval turns spend the user's turn quota: an experiment runs at most
 * MAX_CONCURRENT_TURNS_PER_USER examples at once, and a lane the quota refuses waits its turn.
 */
import { z } from 'zod';
import { userContext, type AgentContext } from '../auth/agent-context.js';
import { ownedBy } from '../auth/scope.js';
import type { Example, Experiment, ExperimentResult, Job, Prisma } from '../db/generated/client.js';
import { runDetached } from '../engine/detached-run.js';
import type { EngineDeps } from '../engine/engine-deps.js';
import type { TurnQuota } from '../engine/quota.js';
import type { TurnService } from '../turns/turn-service.js';
import { isAppError, NotFoundError, ValidationError } from '../errors.js';
import type { UsageTotals } from '../events/agent-event.js';
import type { RemPubSub } from '../events/pubsub.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { JobReleased } from '../jobs/job-worker.js';
import { parseInput } from '../validation.js';
import { replayEvalTurn, runEvalTurn, whenAdmitted } from './eval-turn.js';
import { sourceOf } from './turn-source.js';
import type { ReplayOverrides } from '../turns/replay.js';

export const EXPERIMENT_JOB = 'experiment';

export type ExperimentDeps = Pick<EngineDeps, 'prisma' | 'sql' | 'agents' | 'models' | 'tools' | 'logger' | 'settings' | 'hub' | 'relay'> & {
  pubsub: RemPubSub;
  queue: JobQueue;
  turns: TurnService;
  quota: TurnQuota;
};

const runInput = z.object({
  agent: z.string().trim().min(1).max(64),
  datasetId: z.uuid('must be a dataset id'),
  evaluators: z.array(z.string().trim().min(1).max(64)).min(1, 'name at least one evaluator').max(10),
  model: z.string().trim().min(1).max(200).nullish(),
  concurrency: z.int().min(1).max(10).nullish(),
});
export type RunExperimentInput = z.input<typeof runInput>;

/** Checks the agent, evaluators, model and dataset, stores the experiment with a pending result per example, and queues it. */
export async function runExperiment(deps: ExperimentDeps, ctx: AgentContext, raw: RunExperimentInput): Promise<Experiment> {
  const input = parseInput(runInput, raw, ['input']);
  const agent = await deps.agents.load(ctx, input.agent);
  return queueExperiment(deps, ctx, input, { agent: agent.name, agentVersion: agent.version });
}

/** What every experiment is asked for: the dataset, the evaluators, the model and how many examples run at once. */
export interface ExperimentRequest {
  datasetId: string;
  evaluators: string[];
  model?: string | null;
  concurrency?: number | null;
}

/**
 * Checks the evaluators, model, concurrency and dataset (the caller's own, with examples, each
 * passing `check`), then stores the experiment with a pending result per example and queues its job.
 */
export async function queueExperiment(
  deps: ExperimentDeps,
  ctx: AgentContext,
  input: ExperimentRequest,
  run: Pick<Prisma.ExperimentCreateInput, 'agent' | 'agentVersion' | 'regression' | 'overrides'>,
  check?: (examples: Pick<Example, 'id' | 'ord' | 'sourceTurnId'>[]) => void,
): Promise<Experiment> {
  const evaluators = await Promise.all(input.evaluators.map((name) => deps.agents.load(ctx, name)));
  evaluators.forEach((e, i) => {
    if (e.spec.kind !== 'evaluator' || !e.spec.structuredOutput) {
      throw new ValidationError(`input.evaluators.${i}: ${e.name} is not an evaluator (kind: evaluator, structured_output: true)`, [
        { path: ['input', 'evaluators', i], message: 'not an evaluator with structured output' },
      ]);
    }
  });
  if (input.model) deps.models.resolve(input.model);
  // More lanes than the user may run turns would only be refused.
  const { concurrentTurnsPerUser } = deps.quota.settings;
  if (input.concurrency != null && input.concurrency > concurrentTurnsPerUser) {
    const message = `must be at most ${concurrentTurnsPerUser}, the turns one user may run at once (MAX_CONCURRENT_TURNS_PER_USER)`;
    throw new ValidationError(`input.concurrency: ${message}`, [{ path: ['input', 'concurrency'], message }]);
  }
  const dataset = await deps.prisma.dataset.findFirst({
    where: { id: input.datasetId, ...ownedBy({ ...ctx, isAdmin: false }) },
    include: { examples: { select: { id: true, ord: true, sourceTurnId: true } } },
  });
  if (!dataset) throw new NotFoundError('Dataset');
  if (dataset.examples.length === 0)
    throw new ValidationError('input.datasetId: the dataset has no examples', [{ path: ['input', 'datasetId'], message: 'has no examples' }]);
  check?.(dataset.examples);
  const experiment = await deps.prisma.experiment.create({
    data: {
      ...run,
      datasetId: dataset.id,
      model: input.model ?? null,
      evaluators: evaluators.map((e) => e.name),
      concurrency: input.concurrency ?? Math.min(2, concurrentTurnsPerUser),
      total: dataset.examples.length,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      results: { create: dataset.examples.map((e) => ({ exampleId: e.id, ord: e.ord })) },
    },
  });
  const job = await deps.queue.enqueue({ kind: EXPERIMENT_JOB, tenantId: ctx.tenantId, userId: ctx.userId, payload: { experimentId: experiment.id } });
  return deps.prisma.experiment.update({ where: { id: experiment.id }, data: { jobId: job.id } });
}

/** The job: runs the experiment's pending examples, `concurrency` at a time, until none is left. */
export function experimentHandler(deps: ExperimentDeps) {
  return async (job: Job, signal: AbortSignal): Promise<{ experimentId: string }> => {
    const { experimentId } = job.payload as { experimentId: string };
    const ctx = userContext(job.tenantId, job.userId);
    const experiment = await deps.prisma.experiment.findUnique({ where: { id: experimentId } });
    if (!experiment) return { experimentId };
    // Examples a dead process had started (this job's lease was its): run them again.
    await deps.prisma.experimentResult.updateMany({ where: { experimentId, status: 'RUNNING' }, data: { status: 'PENDING', startedAt: null } });
    await deps.prisma.experiment.update({ where: { id: experimentId }, data: { status: 'RUNNING' } });
    let run: ExampleRun;
    try {
      run = {
        // A regression replays each example's own turn, with the agent its overrides name.
        agent: experiment.regression ? experiment.agent : (await deps.agents.load(ctx, experiment.agent, experiment.agentVersion)).name,
        evaluators: await Promise.all(experiment.evaluators.map((name) => deps.agents.load(ctx, name))),
        model: experiment.model,
        replay: experiment.regression ? ((experiment.overrides ?? {}) as ReplayOverrides) : null,
      };
    } catch (error) {
      // The agent or an evaluator was deleted since the experiment was queued: nothing can run.
      if (!isAppError(error)) throw error;
      await deps.prisma.experiment.update({ where: { id: experimentId }, data: { status: 'FAILED', finishedAt: new Date() } });
      deps.pubsub.publish('experiment:progress', experimentId, { experimentId });
      return { experimentId };
    }

    const lane = async () => {
      // A shutdown lets the example in hand finish (its result is stored) and starts no other.
      while (!signal.aborted) {
        const claimed = await claimExample(deps, experimentId);
        if (!claimed) return;
        const example = await deps.prisma.example.findUniqueOrThrow({ where: { id: claimed.exampleId } });
        const outcome = await runExample(deps, ctx, run, example, signal);
        // Stopped while waiting for the quota: the example stays claimed, and the next run takes it again.
        if (!outcome) return;
        await storeResult(deps, claimed.id, experimentId, outcome);
        deps.pubsub.publish('experiment:progress', experimentId, { experimentId });
      }
    };
    // Every lane ends before the job does: a failed job must not leave examples running behind it.
    const lanes = await Promise.allSettled(Array.from({ length: experiment.concurrency }, lane));
    const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
    if (signal.aborted) throw new JobReleased();
    await deps.prisma.experiment.update({ where: { id: experimentId }, data: { status: 'DONE', finishedAt: new Date() } });
    deps.pubsub.publish('experiment:progress', experimentId, { experimentId });
    return { experimentId };
  };
}

/** Takes the experiment's next pending example; null when none is left. */
async function claimExample(deps: ExperimentDeps, experimentId: string): Promise<{ id: string; exampleId: string } | null> {
  const [claimed] = await deps.prisma.$queryRaw<{ id: string; example_id: string }[]>`
    UPDATE experiment_results SET status = 'RUNNING', started_at = now()
    WHERE id = (
      SELECT id FROM experiment_results WHERE experiment_id = ${experimentId}::uuid AND status = 'PENDING'
      ORDER BY ord LIMIT 1 FOR UPDATE SKIP LOCKED
    ) AND status = 'PENDING'
    RETURNING id, example_id`;
  return claimed ? { id: claimed.id, exampleId: claimed.example_id } : null;
}

interface ExampleRun {
  agent: string;
  evaluators: Awaited<ReturnType<EngineDeps['agents']['load']>>[];
  model: string | null;
  /** A regression's overrides: the example's source turn is replayed instead of its input asked anew. */
  replay: ReplayOverrides | null;
}

type Outcome =
  | {
      ok: true;
      output: string;
      turnId: string;
      scores: Record<string, unknown>;
      baselineScores: Record<string, unknown>;
      usage: { agent: UsageTotals; evaluators: Record<string, UsageTotals> };
    }
  | { ok: false; error: { code: string; message: string }; output: string | null; turnId: string | null; usage: Record<string, unknown> };

async function runExample(
  deps: ExperimentDeps,
  ctx: AgentContext,
  run: ExampleRun,
  example: Pick<Example, 'input' | 'expected' | 'sourceTurnId' | 'source'>,
  signal: AbortSignal,
): Promise<Outcome | null> {
  let output: string | null = null;
  let turnId: string | null = null;
  const usage: { agent?: UsageTotals; evaluators: Record<string, UsageTotals> } = { evaluators: {} };
  const judge = async (answer: string, into: Record<string, unknown>, label: string) => {
    for (const evaluator of run.evaluators) {
      const judged = await runDetached(deps, { agent: evaluator, ctx: { ...ctx, isEval: true }, content: judgeInput(example, answer), callType: 'evaluator' });
      into[evaluator.name] = judged.output;
      usage.evaluators[`${label}${evaluator.name}`] = judged.usage;
    }
  };
  try {
    const { replay } = run;
    const answer = await whenAdmitted(signal, () =>
      replay && example.sourceTurnId
        ? replayEvalTurn(deps, ctx, { turnId: example.sourceTurnId, overrides: replay })
        : runEvalTurn(deps, ctx, { agent: run.agent, model: run.model, content: example.input }),
    );
    if (!answer) return null;
    turnId = answer.turnId;
    if (answer.usage) usage.agent = answer.usage;
    if (!answer.ok) return { ok: false, error: answer.error, output, turnId, usage };
    output = answer.text;
    const scores: Record<string, unknown> = {};
    await judge(answer.text, scores, '');
    const baselineScores: Record<string, unknown> = {};
    const original = replay ? sourceOf(example)?.answer : null;
    if (original != null) await judge(original, baselineScores, 'original:');
    return { ok: true, output: answer.text, turnId, scores, baselineScores, usage: { agent: answer.usage, evaluators: usage.evaluators } };
  } catch (error) {
    if (!isAppError(error)) deps.logger.error({ err: error }, 'experiment example failed');
    const known = isAppError(error) ? { code: error.code, message: error.message } : { code: 'INTERNAL', message: 'The example could not be run' };
    return { ok: false, error: known, output, turnId, usage };
  }
}

/** What an evaluator reads: the question, the reference answer (when there is one) and the agent's answer. */
function judgeInput(example: { input: string; expected: string | null }, output: string): string {
  return ['Question:', example.input, '', 'Reference answer:', example.expected ?? '(none given)', '', 'Answer:', output].join('\n');
}

/** Stores an example's outcome and counts it done, in one statement (only once per example). */
async function storeResult(deps: ExperimentDeps, resultId: string, experimentId: string, outcome: Outcome) {
  const status = outcome.ok ? 'DONE' : 'ERROR';
  await deps.prisma.$executeRaw`
    WITH stored AS (
      UPDATE experiment_results SET status = ${status}::"ResultStatus", output = ${outcome.output}, scores = ${JSON.stringify(outcome.ok ? outcome.scores : {})}::jsonb,
        turn_id = ${outcome.turnId}::uuid, baseline_scores = ${JSON.stringify(outcome.ok ? outcome.baselineScores : {})}::jsonb,
        usage = ${JSON.stringify(outcome.usage)}::jsonb, error = ${outcome.ok ? null : JSON.stringify(outcome.error)}::jsonb, finished_at = now()
      WHERE id = ${resultId}::uuid AND status = 'RUNNING'
      RETURNING 1
    )
    UPDATE experiments SET done = done + (SELECT count(*) FROM stored) WHERE id = ${experimentId}::uuid`;
}

export interface ScoreAggregate {
  name: string;
  mean: number;
  min: number;
  count: number;
}

export interface EvaluatorAggregate {
  evaluator: string;
  /** Share of judged examples whose `pass` is true; null when the evaluator has no `pass`. */
  passRate: number | null;
  scores: ScoreAggregate[];
}

/** Per evaluator: mean and min of every numeric score, and the pass rate, over the judged examples. */
export function aggregate(evaluators: string[], results: Pick<ExperimentResult, 'status' | 'scores'>[]): EvaluatorAggregate[] {
  return evaluators.map((evaluator) => {
    const judged = results.filter((r) => r.status === 'DONE').map((r) => (r.scores as Record<string, Record<string, unknown>>)[evaluator] ?? {});
    const numeric = new Map<string, number[]>();
    const passes: boolean[] = [];
    for (const scores of judged) {
      for (const [name, value] of Object.entries(scores)) {
        if (typeof value === 'number') numeric.set(name, [...(numeric.get(name) ?? []), value]);
        if (name === 'pass' && typeof value === 'boolean') passes.push(value);
      }
    }
    return {
      evaluator,
      passRate: passes.length ? passes.filter(Boolean).length / passes.length : null,
      scores: [...numeric].map(([name, values]) => ({
        name,
        mean: values.reduce((a, b) => a + b, 0) / values.length,
        min: Math.min(...values),
        count: values.length,
      })),
    };
  });
}

export interface ExampleComparison {
  exampleId: string;
  ord: number;
  a: ExperimentResult | null;
  b: ExperimentResult | null;
  /** `evaluator.score` → b − a, for numeric scores both have. */
  deltas: Record<string, number>;
}

/** Per-example score differences between two experiments over the same dataset (b minus a). */
export async function compareExperiments(
  prisma: ExperimentDeps['prisma'],
  ctx: AgentContext,
  aId: string,
  bId: string,
): Promise<{ a: Experiment; b: Experiment; examples: ExampleComparison[] }> {
  const mine = ownedBy({ ...ctx, isAdmin: false });
  const [a, b] = await Promise.all(
    [aId, bId].map((id) => prisma.experiment.findFirst({ where: { id, ...mine }, include: { results: { orderBy: { ord: 'asc' } } } })),
  );
  if (!a || !b) throw new NotFoundError('Experiment');
  if (a.datasetId !== b.datasetId)
    throw new ValidationError('b: the experiments ran on different datasets', [{ path: ['b'], message: 'not the same dataset as a' }]);
  const ids = [...new Set([...a.results, ...b.results].map((r) => r.exampleId))];
  const ordOf = new Map([...a.results, ...b.results].map((r) => [r.exampleId, r.ord]));
  const examples = ids
    .map((exampleId) => {
      const ra = a.results.find((r) => r.exampleId === exampleId) ?? null;
      const rb = b.results.find((r) => r.exampleId === exampleId) ?? null;
      return { exampleId, ord: ordOf.get(exampleId)!, a: ra, b: rb, deltas: deltas(ra, rb) };
    })
    .sort((x, y) => x.ord - y.ord);
  return { a, b, examples };
}

function deltas(a: ExperimentResult | null, b: ExperimentResult | null): Record<string, number> {
  const out: Record<string, number> = {};
  const sa = (a?.scores ?? {}) as Record<string, Record<string, unknown>>;
  const sb = (b?.scores ?? {}) as Record<string, Record<string, unknown>>;
  for (const [evaluator, scores] of Object.entries(sb)) {
    for (const [name, value] of Object.entries(scores ?? {})) {
      const before = sa[evaluator]?.[name];
      if (typeof value === 'number' && typeof before === 'number') out[`${evaluator}.${name}`] = value - before;
    }
  }
  return out;
}
