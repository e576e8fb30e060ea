import { NotFoundError, ValidationError } from '../../errors.js';
import { createDatasetFromTurns } from '../../evals/turn-datasets.js';
import {
  regressionReport,
  runRegression,
  type Regression,
  type RegressionExample,
  type RegressionSide,
  type RegressionSummary,
  type Verdict,
} from '../../evals/regressions.js';
import { sourceOf } from '../../evals/turn-source.js';
import { encodeGlobalID, rowId } from '../../http/global-ids.js';
import { builder } from '../builder.js';
import { UsageRef } from './events.js';
import { TurnComparisonRef } from './forks.js';

builder.prismaObjectFields('Example', (t) => ({
  sourceTurnId: t.id({
    nullable: true,
    description: 'The turn this example was taken from (createDatasetFromTurns); null for one written by hand.',
    resolve: (example) => (example.sourceTurnId ? encodeGlobalID('Turn', example.sourceTurnId) : null),
  }),
  source: t.field({
    type: 'JSON',
    nullable: true,
    description: 'That turn as it was: the conversation before it (`context`), `answer`, `toolCalls`, `usage`, `latencyMs`, agent and model.',
    resolve: (example) => sourceOf(example),
  }),
}));

builder.prismaObjectFields('Experiment', (t) => ({
  regression: t.exposeBoolean('regression', { description: 'Replays of a dataset of turns (runRegression); see `regression(experimentId)`.' }),
}));

const VerdictEnum = builder.enumType('RegressionVerdict', { values: ['IMPROVED', 'REGRESSED', 'UNCHANGED'] as const satisfies readonly Verdict[] });

const RegressionSideRef = builder.objectRef<RegressionSide>('RegressionSide').implement({
  description: 'What the original turn, or its replay, answered and spent, and how the evaluators scored it.',
  fields: (t) => ({
    output: t.exposeString('output', { nullable: true }),
    toolCalls: t.expose('toolCalls', { type: 'JSON', description: '[{ name, arguments, result, isError }]' }),
    usage: t.field({ type: UsageRef, resolve: (side) => side.usage }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true }),
    scores: t.expose('scores', { type: 'JSON', description: 'Evaluator name → its structured output.' }),
  }),
});

const RegressionExampleRef = builder.objectRef<RegressionExample>('RegressionExample').implement({
  fields: (t) => ({
    ord: t.int({ resolve: (e) => e.example.ord }),
    example: t.prismaField({ type: 'Example', resolve: (_q, e) => e.example }),
    result: t.prismaField({ type: 'ExperimentResult', resolve: (_q, e) => e.result }),
    verdict: t.field({ type: VerdictEnum, nullable: true, description: 'By the evaluators; null until the example has run.', resolve: (e) => e.verdict }),
    original: t.field({ type: RegressionSideRef, resolve: (e) => e.original }),
    candidate: t.field({ type: RegressionSideRef, nullable: true, resolve: (e) => e.candidate }),
    comparison: t.field({
      type: TurnComparisonRef,
      nullable: true,
      description: 'Original (a) → candidate (b), as compareTurns; null until the replay ran, or once the original turn is deleted.',
      resolve: (e) => e.comparison,
    }),
  }),
});

const RegressionSummaryRef = builder.objectRef<RegressionSummary>('RegressionSummary').implement({
  description: 'Verdict counts, and the tokens and latency of the originals (a) and candidates (b) over the finished examples.',
  fields: (t) => ({
    total: t.exposeInt('total'),
    finished: t.exposeInt('finished'),
    improved: t.exposeInt('improved'),
    regressed: t.exposeInt('regressed'),
    unchanged: t.exposeInt('unchanged'),
    tokensA: t.exposeInt('tokensA'),
    tokensB: t.exposeInt('tokensB'),
    tokensDelta: t.int({ resolve: (s) => s.tokensB - s.tokensA }),
    latencyMsA: t.exposeInt('latencyMsA'),
    latencyMsB: t.exposeInt('latencyMsB'),
    latencyMsDelta: t.int({ resolve: (s) => s.latencyMsB - s.latencyMsA }),
  }),
});

const RegressionRef = builder.objectRef<Regression>('Regression').implement({
  fields: (t) => ({
    experiment: t.prismaField({ type: 'Experiment', resolve: (_q, r) => r.experiment }),
    examples: t.field({ type: [RegressionExampleRef], resolve: (r) => r.examples }),
    summary: t.field({ type: RegressionSummaryRef, resolve: (r) => r.summary }),
  }),
});

const CreateDatasetFromTurnsInput = builder.inputType('CreateDatasetFromTurnsInput', {
  description: 'The turns: those named, or without ids your own completed turns matching the filters (oldest first).',
  fields: (t) => ({
    name: t.string(),
    turnIds: t.idList({ required: false }),
    agent: t.string({ required: false }),
    since: t.field({ type: 'DateTime', required: false }),
    until: t.field({ type: 'DateTime', required: false }),
    sessionIds: t.idList({ required: false }),
    limit: t.int({ required: false, description: '1–200 (default 50).' }),
  }),
});

const RegressionOverridesInput = builder.inputType('RegressionOverridesInput', {
  fields: (t) => ({
    temperature: t.float({ required: false, description: 'From 0 to 2.' }),
    systemPromptSuffix: t.string({ required: false, description: 'Appended to the agent’s system prompt.' }),
  }),
});

const RunRegressionInput = builder.inputType('RunRegressionInput', {
  fields: (t) => ({
    datasetId: t.id({ description: 'A dataset made with createDatasetFromTurns.' }),
    agent: t.string({ required: false, description: 'The candidate agent (default: each turn’s own).' }),
    agentVersion: t.int({
      required: false,
      description: 'A registered version of the candidate agent (default: its latest; each turn’s own without `agent` or this).',
    }),
    model: t.string({ required: false, description: 'The candidate model (default: each turn’s own).' }),
    overrides: t.field({ type: RegressionOverridesInput, required: false }),
    evaluators: t.stringList({ description: 'Evaluator agents (kind: evaluator, structured output): each judges the original and the candidate.' }),
    concurrency: t.int({ required: false, description: 'Examples run at once, as for runExperiment.' }),
  }),
});

builder.queryField('regression', (t) =>
  t.field({
    type: RegressionRef,
    description: 'A regression’s examples side by side (original and candidate, answer diff, tool-call changes, scores, verdict) and its summary.',
    args: { experimentId: t.arg.id() },
    resolve: (_root, args, ctx) => regressionReport(ctx, ctx.viewer, rowId(String(args.experimentId), 'Experiment', 'experimentId')),
  }),
);

builder.mutationFields((t) => ({
  createDatasetFromTurns: t.prismaField({
    type: 'Dataset',
    description: 'A dataset of real turns: each example keeps its turn (the question, the conversation before it, the answer, tool calls, usage).',
    errors: { types: [ValidationError, NotFoundError], dataField: { name: 'dataset' } },
    args: { input: t.arg({ type: CreateDatasetFromTurnsInput }) },
    resolve: (_query, _root, { input }, ctx) =>
      createDatasetFromTurns(ctx.prisma, ctx.viewer, {
        ...input,
        turnIds: input.turnIds?.map((id, i) => rowId(String(id), 'Turn', `input.turnIds.${i}`)),
        sessionIds: input.sessionIds?.map((id, i) => rowId(String(id), 'Session', `input.sessionIds.${i}`)),
      }),
  }),
  runRegression: t.prismaField({
    type: 'Experiment',
    description:
      'Queues a regression: each example’s turn replayed on a fork of its own conversation with the candidate, both sides judged. Follow it with experimentProgress, read it with regression.',
    errors: { types: [ValidationError, NotFoundError], dataField: { name: 'experiment' } },
    args: { input: t.arg({ type: RunRegressionInput }) },
    resolve: (_query, _root, { input }, ctx) =>
      runRegression(ctx.evals, ctx.viewer, { ...input, datasetId: rowId(String(input.datasetId), 'Dataset', 'input.datasetId') }),
  }),
}));
