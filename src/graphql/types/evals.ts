import { ownedBy } from '../../auth/scope.js';
import type { ExperimentResult } from '../../db/generated/client.js';
import { ExperimentStatus, ResultStatus } from '../../db/generated/enums.js';
import { addExamples, createDataset, deleteDataset } from '../../evals/datasets.js';
import { aggregate, compareExperiments, runExperiment, type EvaluatorAggregate, type ExampleComparison, type ScoreAggregate } from '../../evals/experiments.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { rowId } from '../../http/global-ids.js';
import { pageSize } from '../pagination.js';

const mine = (ctx: GraphQLContext) => ownedBy({ ...ctx.viewer, isAdmin: false });

const ExperimentStatusEnum = builder.enumType(ExperimentStatus, { name: 'ExperimentStatus' });
const ResultStatusEnum = builder.enumType(ResultStatus, { name: 'ExperimentResultStatus' });

builder.prismaObject('Example', {
  description: 'A golden example: an input, optionally the expected answer, and tags.',
  fields: (t) => ({
    id: t.exposeID('id'),
    ord: t.exposeInt('ord', { description: 'Position in the dataset, from 1.' }),
    input: t.exposeString('input'),
    expected: t.exposeString('expected', { nullable: true }),
    tags: t.exposeStringList('tags'),
  }),
});

builder.prismaNode('Dataset', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...mine(ctx) }),
  nullable: true,
  description: 'A golden set of examples to run experiments on.',
  fields: (t) => ({
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    examples: t.relation('examples', { query: { orderBy: { ord: 'asc' } } }),
    exampleCount: t.int({ resolve: (dataset, _args, ctx) => ctx.prisma.example.count({ where: { datasetId: dataset.id } }) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ScoreAggregateRef = builder.objectRef<ScoreAggregate>('ScoreAggregate').implement({
  fields: (t) => ({ name: t.exposeString('name'), mean: t.exposeFloat('mean'), min: t.exposeFloat('min'), count: t.exposeInt('count') }),
});
const EvaluatorAggregateRef = builder.objectRef<EvaluatorAggregate>('EvaluatorAggregate').implement({
  description: 'One evaluator’s scores over the examples it judged.',
  fields: (t) => ({
    evaluator: t.exposeString('evaluator'),
    passRate: t.exposeFloat('passRate', { nullable: true, description: 'Share of examples with `pass: true`; null when the evaluator has no `pass`.' }),
    scores: t.field({ type: [ScoreAggregateRef], resolve: (a) => a.scores }),
  }),
});

builder.prismaObject('ExperimentResult', {
  description: 'One example of an experiment: the agent’s output, each evaluator’s scores and the usage.',
  fields: (t) => ({
    id: t.exposeID('id'),
    example: t.relation('example'),
    status: t.expose('status', { type: ResultStatusEnum }),
    output: t.exposeString('output', { nullable: true }),
    scores: t.expose('scores', { type: 'JSON', description: 'Evaluator name → its structured output.' }),
    usage: t.expose('usage', { type: 'JSON', description: '{ agent: usage, evaluators: { name: usage } }' }),
    error: t.expose('error', { type: 'JSON', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

const ExperimentRef = builder.prismaNode('Experiment', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...mine(ctx) }),
  nullable: true,
  description: 'An agent run over every example of a dataset, judged by evaluator agents (a background job).',
  fields: (t) => ({
    dataset: t.relation('dataset'),
    agent: t.exposeString('agent'),
    agentVersion: t.exposeInt('agentVersion', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
    evaluators: t.exposeStringList('evaluators'),
    concurrency: t.exposeInt('concurrency'),
    status: t.expose('status', { type: ExperimentStatusEnum }),
    done: t.exposeInt('done', { description: 'Examples finished (judged, or failed).' }),
    total: t.exposeInt('total'),
    results: t.relation('results', { query: { orderBy: { ord: 'asc' } } }),
    aggregates: t.field({
      type: [EvaluatorAggregateRef],
      resolve: async (experiment, _args, ctx) =>
        aggregate(
          experiment.evaluators,
          await ctx.prisma.experimentResult.findMany({ where: { experimentId: experiment.id }, select: { status: true, scores: true } }),
        ),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

const ExampleComparisonRef = builder.objectRef<ExampleComparison>('ExampleComparison').implement({
  fields: (t) => ({
    ord: t.exposeInt('ord'),
    a: t.prismaField({ type: 'ExperimentResult', nullable: true, resolve: (_q, c) => c.a as ExperimentResult | null }),
    b: t.prismaField({ type: 'ExperimentResult', nullable: true, resolve: (_q, c) => c.b as ExperimentResult | null }),
    deltas: t.expose('deltas', { type: 'JSON', description: '`evaluator.score` → b − a, for numeric scores both have.' }),
  }),
});

const ExperimentComparisonRef = builder.objectRef<Awaited<ReturnType<typeof compareExperiments>>>('ExperimentComparison').implement({
  fields: (t) => ({
    a: t.field({ type: ExperimentRef, resolve: (c) => c.a }),
    b: t.field({ type: ExperimentRef, resolve: (c) => c.b }),
    examples: t.field({ type: [ExampleComparisonRef], resolve: (c) => c.examples }),
  }),
});

const ExampleInput = builder.inputType('ExampleInput', {
  fields: (t) => ({ input: t.string(), expected: t.string({ required: false }), tags: t.stringList({ required: false }) }),
});
const CreateDatasetInput = builder.inputType('CreateDatasetInput', {
  fields: (t) => ({ name: t.string(), description: t.string({ required: false }), examples: t.field({ type: [ExampleInput], required: false }) }),
});
const RunExperimentInput = builder.inputType('RunExperimentInput', {
  fields: (t) => ({
    agent: t.string(),
    datasetId: t.id(),
    evaluators: t.stringList({ description: 'Evaluator agents (kind: evaluator, structured output).' }),
    model: t.string({ required: false, description: 'Model for the agent (evaluators keep theirs).' }),
    concurrency: t.int({
      required: false,
      description: 'Examples run at once: 1–10 and at most MAX_CONCURRENT_TURNS_PER_USER (default 2, or that limit if lower).',
    }),
  }),
});

builder.queryFields((t) => ({
  datasets: t.prismaConnection({
    type: 'Dataset',
    cursor: 'id',
    ...pageSize(20, 100),
    resolve: (query, _root, _args, ctx) => ctx.prisma.dataset.findMany({ ...query, where: mine(ctx), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  }),
  dataset: t.prismaField({
    type: 'Dataset',
    nullable: true,
    args: { id: t.arg.id() },
    resolve: async (query, _root, args, ctx) => {
      const dataset = await ctx.prisma.dataset.findFirst({ ...query, where: { id: rowId(String(args.id), 'Dataset'), ...mine(ctx) } });
      if (!dataset) throw new NotFoundError('Dataset');
      return dataset;
    },
  }),
  experiments: t.prismaConnection({
    type: 'Experiment',
    cursor: 'id',
    ...pageSize(20, 100),
    args: { datasetId: t.arg.id({ required: false }) },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.experiment.findMany({
        ...query,
        where: { ...mine(ctx), ...(args.datasetId ? { datasetId: rowId(String(args.datasetId), 'Dataset', 'datasetId') } : {}) },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      }),
  }),
  experiment: t.prismaField({
    type: 'Experiment',
    nullable: true,
    description: 'Status, progress (done of total), results and aggregates.',
    args: { id: t.arg.id() },
    resolve: async (query, _root, args, ctx) => {
      const experiment = await ctx.prisma.experiment.findFirst({ ...query, where: { id: rowId(String(args.id), 'Experiment'), ...mine(ctx) } });
      if (!experiment) throw new NotFoundError('Experiment');
      return experiment;
    },
  }),
  compareExperiments: t.field({
    type: ExperimentComparisonRef,
    description: 'Per-example score differences (b − a) between two experiments on the same dataset.',
    args: { a: t.arg.id(), b: t.arg.id() },
    resolve: (_root, args, ctx) =>
      compareExperiments(ctx.prisma, ctx.viewer, rowId(String(args.a), 'Experiment', 'a'), rowId(String(args.b), 'Experiment', 'b')),
  }),
}));

const errors = [ValidationError, NotFoundError];

builder.mutationFields((t) => ({
  createDataset: t.prismaField({
    type: 'Dataset',
    errors: { types: errors, dataField: { name: 'dataset' } },
    args: { input: t.arg({ type: CreateDatasetInput }) },
    resolve: (_query, _root, args, ctx) => createDataset(ctx.prisma, ctx.viewer, args.input),
  }),
  addExamples: t.prismaField({
    type: 'Dataset',
    errors: { types: errors, dataField: { name: 'dataset' } },
    args: { datasetId: t.arg.id(), examples: t.arg({ type: [ExampleInput] }) },
    resolve: (_query, _root, args, ctx) => addExamples(ctx.prisma, ctx.viewer, rowId(String(args.datasetId), 'Dataset', 'datasetId'), args.examples),
  }),
  deleteDataset: t.prismaField({
    type: 'Dataset',
    errors: { types: errors, dataField: { name: 'dataset', description: 'The dataset as it was before deletion.' } },
    args: { id: t.arg.id() },
    resolve: (_query, _root, args, ctx) => deleteDataset(ctx.prisma, ctx.viewer, rowId(String(args.id), 'Dataset')),
  }),
  runExperiment: t.prismaField({
    type: 'Experiment',
    description: 'Queues an experiment: the agent on every example, then each evaluator on (input, expected, output). Follow it with experimentProgress.',
    errors: { types: errors, dataField: { name: 'experiment' } },
    args: { input: t.arg({ type: RunExperimentInput }) },
    resolve: (_query, _root, { input }, ctx) =>
      runExperiment(ctx.evals, ctx.viewer, { ...input, datasetId: rowId(String(input.datasetId), 'Dataset', 'input.datasetId') }),
  }),
}));

builder.subscriptionField('experimentProgress', (t) =>
  t.field({
    type: ExperimentRef,
    description: 'The experiment now, then after every example it finishes; completes once it is DONE or FAILED.',
    args: { id: t.arg.id() },
    subscribe: async function* (_root, args, ctx) {
      const id = rowId(String(args.id), 'Experiment');
      const where = { id, ...mine(ctx) };
      // Subscribed before the first read, so no progress between the two is missed.
      const changes = ctx.pubsub.subscribe('experiment:progress', id);
      try {
        let experiment = await ctx.prisma.experiment.findFirst({ where });
        if (!experiment) throw new NotFoundError('Experiment');
        yield experiment;
        while (experiment.status !== 'DONE' && experiment.status !== 'FAILED') {
          const next = await changes.next();
          if (next.done) return;
          experiment = await ctx.prisma.experiment.findFirstOrThrow({ where });
          yield experiment;
        }
      } finally {
        await changes.return?.();
      }
    },
    resolve: (experiment) => experiment,
  }),
);
