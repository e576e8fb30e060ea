import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATED_AGENT, registerAgent } from '../support/agents.js';
import { caller, collect, newUser, wsClient, type Caller } from '../support/client.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest, type Script } from '../support/fake-openai.js';
import { startTestServer, tempDataDir, type TestServer } from '../support/server.js';
import {
  AddExamplesDocument,
  CompareExperimentsDocument,
  CreateDatasetDocument,
  DatasetsDocument,
  DeleteDatasetDocument,
  ExperimentDocument,
  ExperimentProgressDocument,
  ExperimentsDocument,
  RunExperimentDocument,
  type RunExperimentInput,
} from '../generated/graphql.js';

// One fake model and one data directory for the whole file: the server is restarted on them.
let fake: FakeOpenAI;
let server: TestServer;
let dataDir: string;
const start = async (env: Record<string, string> = {}) => {
  server = await startTestServer({
    // Ended ephemeral turns go at once unless a test keeps them.
    EPHEMERAL_TURN_RETENTION_MS: '0',
    ...env,
    DATA_DIR: dataDir,
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: fake.url,
    LLM_DEFAULT_MODEL: 'openai:fake-model',
    LLM_RETRY_BASE_MS: '1',
    JOB_KINDS: 'experiment',
    JOB_POLL_MS: '100',
  });
};
beforeAll(async () => {
  fake = await startFakeOpenAI();
  dataDir = await tempDataDir();
  await start();
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

const judged = (r: RecordedRequest) => r.body.response_format?.json_schema?.name === 'answer-quality';
const lastMessage = (r: RecordedRequest) => r.body.messages.at(-1).content as string;

/** The agent answers "Q<n>" with "A<n>", slowly; the judge scores example n with correctness `score(n)`. */
function model(score: (n: number) => number, delayMs = 0): Script {
  return (req) => {
    if (judged(req)) {
      const n = Number(/^Question:\nQ(\d+)\n\nReference answer:\nA\d+\n\nAnswer:\nthe answer is A\d+$/.exec(lastMessage(req))![1]);
      return {
        json: { correctness: score(n), completeness: 1, groundedness: 0.5, pass: score(n) >= 0.6, reasoning: `example ${n}` },
        usage: { prompt_tokens: 20, completion_tokens: 5 },
      };
    }
    return { text: ['the ', 'answer ', 'is ', `A${lastMessage(req).slice(1)}`], delayMs, usage: { prompt_tokens: 10, completion_tokens: 4 } };
  };
}

async function dataset(user: Caller, n: number) {
  const examples = Array.from({ length: n }, (_, i) => ({ input: `Q${i + 1}`, expected: `A${i + 1}`, tags: i % 2 ? ['odd'] : [] }));
  const { createDataset } = await user.data(CreateDatasetDocument, { input: { name: 'golden', examples } });
  if (createDataset.__typename !== 'CreateDatasetSuccess') throw new Error(JSON.stringify(createDataset));
  return createDataset.dataset;
}

async function run(user: Caller, input: RunExperimentInput) {
  const { runExperiment } = await user.data(RunExperimentDocument, { input });
  if (runExperiment.__typename !== 'RunExperimentSuccess') throw new Error(JSON.stringify(runExperiment));
  return runExperiment.experiment;
}

/** The same caller, talking to the server running now (it gets a new port when restarted). */
const now = (user: Caller) => caller(server.url, user.headers);

/** Waits for a count to reach 0 (an ended ephemeral turn is dropped just after its stream ends). */
async function untilGone(count: () => Promise<number>) {
  for (let i = 0; i < 400 && (await count()) > 0; i++) await sleep(25);
  expect(await count()).toBe(0);
}

async function until(user: Caller, id: string, done: (e: { status: string; done: number }) => boolean) {
  for (let i = 0; i < 1200; i++) {
    const { experiment } = await now(user).data(ExperimentDocument, { id });
    if (done(experiment!)) return experiment!;
    await sleep(25);
  }
  throw new Error('timed out waiting for the experiment');
}

describe('experiments', () => {
  let user: Caller;
  let first: string;
  let datasetId: string;

  it('run every example once across a server restart, storing outputs, scores, usage and aggregates', async () => {
    user = newUser(server.url);
    const golden = await dataset(user, 5);
    datasetId = golden.id;
    expect(golden.examples.map((e) => [e.ord, e.input, e.expected])).toEqual([1, 2, 3, 4, 5].map((n) => [n, `Q${n}`, `A${n}`]));
    fake.enqueue(...Array.from({ length: 10 }, () => model((n) => n / 5, 60)));
    const queued = await run(user, { agent: 'general', datasetId, evaluators: ['answer-quality'], concurrency: 1 });
    first = queued.id;
    expect(queued).toMatchObject({ status: 'QUEUED', total: 5, done: 0 });

    const midway = await until(user, first, (e) => e.done >= 2);
    expect(midway.status).toBe('RUNNING');
    await server.stop();
    expect(fake.chatRequests.filter((r) => !judged(r)).length).toBeLessThan(5);
    // The example in hand when the server stopped is finished and stored; the rest wait for the next server.
    await start();
    const afterRestart = await until(user, first, (e) => e.status === 'DONE');
    expect(afterRestart).toMatchObject({ status: 'DONE', done: 5, total: 5, agent: 'general', model: null, evaluators: ['answer-quality'] });
    expect(afterRestart.finishedAt).not.toBeNull();

    const agentInputs = fake.chatRequests.filter((r) => !judged(r)).map(lastMessage);
    expect(agentInputs.sort()).toEqual(['Q1', 'Q2', 'Q3', 'Q4', 'Q5']);
    expect(fake.chatRequests.filter(judged)).toHaveLength(5);
    expect(fake.pending).toBe(0);

    expect(afterRestart.results.map((r) => [r.example.ord, r.status, r.output])).toEqual([1, 2, 3, 4, 5].map((n) => [n, 'DONE', `the answer is A${n}`]));
    expect(afterRestart.results[0]).toMatchObject({
      scores: { 'answer-quality': { correctness: 0.2, completeness: 1, groundedness: 0.5, pass: false, reasoning: 'example 1' } },
      usage: { agent: { inputTokens: 10, outputTokens: 4, requests: 1 }, evaluators: { 'answer-quality': { inputTokens: 20, outputTokens: 5, requests: 1 } } },
      error: null,
    });
    const [aggregate] = afterRestart.aggregates;
    expect(aggregate!.evaluator).toBe('answer-quality');
    expect(aggregate!.passRate).toBeCloseTo(0.6);
    const correctness = aggregate!.scores.find((s) => s.name === 'correctness')!;
    expect(correctness.mean).toBeCloseTo(0.6);
    expect(correctness).toMatchObject({ min: 0.2, count: 5 });
    expect(aggregate!.scores.map((s) => s.name)).toEqual(['correctness', 'completeness', 'groundedness']);
    // The evaluator saw question, reference and answer.
    expect(lastMessage(fake.chatRequests.find(judged)!)).toMatch(/^Question:\nQ1\n\nReference answer:\nA1\n\nAnswer:\nthe answer is A1$/);
    // The runs were ephemeral turns: nothing of them is in the user's sessions, and each turn went
    // (with its session) once its stream ended.
    const userId = user.headers['x-user-id'];
    await untilGone(() => server.db.prisma.turn.count({ where: { userId } }));
    expect(await server.db.prisma.session.count({ where: { userId } })).toBe(0);
    expect(await server.db.prisma.message.count({ where: { userId } })).toBe(0);
    // The evaluator's calls, outside any turn, are recorded too, as evaluator calls.
    const evaluatorCalls = await server.db.prisma.llmCall.findMany({ where: { userId, turnId: null } });
    expect(evaluatorCalls.length).toBeGreaterThan(0);
    expect(new Set(evaluatorCalls.map((c) => c.callType))).toEqual(new Set(['evaluator']));
    fake.reset();
  });

  it('streams progress to completion and compares two experiments example by example', async () => {
    // Ended ephemeral turns are kept from here on, so the eval turns can be looked at.
    await server.stop();
    await start({ EPHEMERAL_TURN_RETENTION_MS: '600000' });
    user = now(user);
    fake.enqueue(...Array.from({ length: 10 }, () => model(() => 1, 20)));
    const second = await run(user, { agent: 'general', datasetId, evaluators: ['answer-quality'], model: 'openai:fake-model', concurrency: 3 });
    const client = wsClient(server.url, user.headers);
    try {
      const progress = (await collect(client, ExperimentProgressDocument, { id: second.id }).done).map((item) => {
        if (item.errors) throw new Error(JSON.stringify(item.errors));
        return item.data!.experimentProgress;
      });
      expect(progress.at(-1)).toMatchObject({ status: 'DONE', done: 5, total: 5 });
      const dones = progress.map((p) => p.done);
      expect(dones).toEqual([...dones].sort((a, b) => a - b));
      expect(progress.length).toBeGreaterThanOrEqual(2);
    } finally {
      await client.dispose();
    }
    expect(fake.pending).toBe(0);

    const { compareExperiments } = await user.data(CompareExperimentsDocument, { a: first, b: second.id });
    expect(compareExperiments.examples.map((e) => [e.ord, (e.deltas as Record<string, number>)['answer-quality.correctness']])).toEqual([
      [1, expect.closeTo(0.8)],
      [2, expect.closeTo(0.6)],
      [3, expect.closeTo(0.4)],
      [4, expect.closeTo(0.2)],
      [5, 0],
    ]);
    expect(compareExperiments.examples[0]!.deltas).toMatchObject({ 'answer-quality.completeness': 0, 'answer-quality.groundedness': 0 });
    const listed = await user.data(ExperimentsDocument, { datasetId });
    expect(listed.experiments.edges.map((e) => e.node.id)).toEqual([second.id, first]);

    // Each example ran as an ephemeral eval turn of the agent, its model call recorded on the turn, no message stored.
    const userId = user.headers['x-user-id'];
    const turns = await server.db.prisma.turn.findMany({ where: { userId }, include: { llmCalls: true, session: true } });
    expect(turns.map((t) => [t.agent, t.model, t.status, t.isEval, t.ephemeral, t.parentId, t.session.isEval, t.llmCalls.length])).toEqual(
      Array.from({ length: 5 }, () => ['general', 'openai:fake-model', 'COMPLETED', true, true, null, true, 1]),
    );
    expect(turns.map((t) => JSON.parse(t.llmCalls[0]!.request!).messages.at(-1).content).sort()).toEqual(['Q1', 'Q2', 'Q3', 'Q4', 'Q5']);
    expect(await server.db.prisma.message.count({ where: { userId } })).toBe(0);
    fake.reset();
  });

  it('records an example whose turn asks for an approval as failed, without waiting for it', async () => {
    const owner = newUser(server.url);
    await registerAgent(owner, GATED_AGENT);
    const golden = await dataset(owner, 1);
    fake.enqueue({ toolCalls: [{ id: 'g1', name: 'action', arguments: { type: 'deploy' } }] });
    const queued = await run(owner, { agent: 'careful', datasetId: golden.id, evaluators: ['answer-quality'] });
    const ended = await until(owner, queued.id, (e) => e.status === 'DONE');
    expect(ended).toMatchObject({ done: 1, total: 1 });
    expect(ended.results.map((r) => [r.status, r.output, r.scores, r.error])).toEqual([
      [
        'ERROR',
        null,
        {},
        { code: 'AWAITING_APPROVAL', message: 'careful asked for approval of tool action, which an experiment cannot give; the turn was cancelled' },
      ],
    ]);
    expect(ended.aggregates).toMatchObject([{ evaluator: 'answer-quality', passRate: null, scores: [] }]);
    // The turn was cancelled (its approval rejected), not left waiting; no evaluator was asked.
    const [turn] = await server.db.prisma.turn.findMany({ where: { userId: owner.headers['x-user-id'] }, include: { approvals: true } });
    expect([turn!.agent, turn!.status, turn!.isEval, turn!.ephemeral, turn!.approvals.map((a) => a.status)]).toEqual([
      'careful',
      'CANCELLED',
      true,
      true,
      ['REJECTED'],
    ]);
    expect(fake.chatRequests).toHaveLength(1);
    expect(fake.pending).toBe(0);
    fake.reset();
  });

  it('waits while the user’s turn quota is used up instead of recording the example as RATE_LIMITED', async () => {
    const owner = newUser(server.url);
    const [tenantId, userId] = [owner.headers['x-tenant-id']!, owner.headers['x-user-id']!];
    // The user's four turns (MAX_CONCURRENT_TURNS_PER_USER) run on another instance.
    const elsewhere: string[] = [];
    for (let i = 0; i < 4; i++) {
      const session = await server.db.prisma.session.create({ data: { name: `elsewhere ${i}`, tenantId, userId } });
      const id = randomUUID();
      await server.db.prisma.turn.create({
        data: {
          id,
          rootId: id,
          sessionId: session.id,
          agent: 'general',
          agentPath: ['general'],
          runner: 'another-instance',
          heartbeatAt: new Date(),
          tenantId,
          userId,
        },
      });
      elsewhere.push(id);
    }
    const golden = await dataset(owner, 1);
    fake.enqueue(
      model(() => 1),
      model(() => 1),
    );
    const queued = await run(owner, { agent: 'general', datasetId: golden.id, evaluators: ['answer-quality'], concurrency: 1 });
    const claimed = await until(owner, queued.id, (e) => e.status === 'RUNNING');
    expect(claimed.done).toBe(0);
    await sleep(300);
    expect(fake.chatRequests).toHaveLength(0);

    await server.db.prisma.turn.updateMany({ where: { id: { in: elsewhere } }, data: { status: 'COMPLETED', runner: null } });
    const ended = await until(owner, queued.id, (e) => e.status === 'DONE');
    expect(ended.results.map((r) => [r.status, r.output, r.error])).toEqual([['DONE', 'the answer is A1', null]]);
    expect(fake.pending).toBe(0);
    fake.reset();
  });

  it('refuses bad input with typed errors and keeps datasets to their owner', async () => {
    const owner = newUser(server.url);
    const stranger = newUser(server.url, owner.headers['x-tenant-id']);
    const golden = await dataset(owner, 2);
    const empty = await dataset(owner, 0);
    const code = async (caller: Caller, input: RunExperimentInput) => {
      const { runExperiment } = await caller.data(RunExperimentDocument, { input });
      return runExperiment.__typename === 'RunExperimentSuccess' ? 'ok' : [runExperiment.code, runExperiment.message];
    };
    expect(await code(owner, { agent: 'general', datasetId: golden.id, evaluators: ['general'] })).toEqual([
      'VALIDATION_FAILED',
      'input.evaluators.0: general is not an evaluator (kind: evaluator, structured_output: true)',
    ]);
    expect(await code(owner, { agent: 'general', datasetId: golden.id, evaluators: [] })).toEqual([
      'VALIDATION_FAILED',
      'input.evaluators: name at least one evaluator',
    ]);
    expect((await code(owner, { agent: 'nope', datasetId: golden.id, evaluators: ['answer-quality'] }))[0]).toBe('NOT_FOUND');
    expect(await code(owner, { agent: 'general', datasetId: empty.id, evaluators: ['answer-quality'] })).toEqual([
      'VALIDATION_FAILED',
      'input.datasetId: the dataset has no examples',
    ]);
    expect(await code(owner, { agent: 'general', datasetId: golden.id, evaluators: ['answer-quality'], concurrency: 0 })).toEqual([
      'VALIDATION_FAILED',
      'input.concurrency: Too small: expected number to be >=1',
    ]);
    expect(await code(stranger, { agent: 'general', datasetId: golden.id, evaluators: ['answer-quality'] })).toEqual(['NOT_FOUND', 'Dataset not found']);
    // More lanes than MAX_CONCURRENT_TURNS_PER_USER (4 here) would have the quota refuse the experiment's own turns.
    expect(await code(owner, { agent: 'general', datasetId: golden.id, evaluators: ['answer-quality'], concurrency: 5 })).toEqual([
      'VALIDATION_FAILED',
      'input.concurrency: must be at most 4, the turns one user may run at once (MAX_CONCURRENT_TURNS_PER_USER)',
    ]);

    const bad = await owner.data(CreateDatasetDocument, { input: { name: ' ', examples: [{ input: '' }] } });
    expect(bad.createDataset).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED' });
    expect((bad.createDataset as { issues: { path: string[] }[] }).issues.map((i) => i.path.join('.'))).toEqual(['input.name', 'input.examples.0.input']);
    expect((await stranger.data(AddExamplesDocument, { datasetId: golden.id, examples: [{ input: 'Q9' }] })).addExamples).toMatchObject({ code: 'NOT_FOUND' });
    expect((await owner.data(AddExamplesDocument, { datasetId: golden.id, examples: [{ input: 'Q3', expected: 'A3' }] })).addExamples).toMatchObject({
      dataset: { exampleCount: 3 },
    });
    expect((await stranger.data(DatasetsDocument)).datasets.edges).toEqual([]);
    expect((await stranger.data(DeleteDatasetDocument, { id: golden.id })).deleteDataset).toMatchObject({ code: 'NOT_FOUND' });
    expect((await owner.data(DeleteDatasetDocument, { id: golden.id })).deleteDataset).toMatchObject({ dataset: { name: 'golden' } });
    expect((await owner.data(DatasetsDocument)).datasets.edges.map((e) => e.node.id)).toEqual([empty.id]);
    expect(fake.chatRequests).toHaveLength(0);
  });
});
