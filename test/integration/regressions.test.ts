import { encodeGlobalID } from '@pothos/plugin-relay';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { chat, registerAgent, useAgentServer } from '../support/agents.js';
import type { RecordedRequest, Script } from '../support/fake-openai.js';
import {
  CreateDatasetDocument,
  CreateDatasetFromTurnsDocument,
  DatasetsDocument,
  ExperimentsDocument,
  ForkedSessionDocument,
  RegressionDocument,
  RunRegressionDocument,
  SessionsDocument,
  type CreateDatasetFromTurnsInput,
  type RunRegressionInput,
} from '../generated/graphql.js';
import { REMGRAPH_BIN } from '../support/process.js';

const env = useAgentServer({ JOB_KINDS: 'experiment', JOB_POLL_MS: '100' });

const TOOL_AGENT = `
name: tool-agent
description: You call tools when asked.
tools:
  - name: action
  - name: register_metadata
max_iterations: 3
`;

const MISSING = '00000000-0000-4000-8000-000000000000';

const judged = (r: RecordedRequest) => r.body.response_format?.json_schema?.name === 'answer-quality';
const withoutSystem = (r: RecordedRequest) => r.body.messages.filter((m: { role: string }) => m.role !== 'system');

/** The evaluator's correctness (and pass from 0.6) of each answer, original or replayed. */
const CORRECTNESS: Record<string, number> = {
  'First answer.': 0.5,
  'Better first answer.': 0.9,
  'Level one.': 0.9,
  'Level two.': 0.3,
  'Hi.': 0.7,
  'Hi again.': 0.7,
};

/** The candidate model: answers each question anew (calling the tool again for "Observe"); the judge scores by CORRECTNESS. */
const candidate: Script = (req) => {
  if (judged(req)) {
    const answer = /\nAnswer:\n([^]*)$/.exec(req.body.messages.at(-1).content as string)![1]!;
    const correctness = CORRECTNESS[answer]!;
    return {
      json: { correctness, completeness: 1, groundedness: 1, pass: correctness >= 0.6, reasoning: answer },
      usage: { prompt_tokens: 20, completion_tokens: 5 },
    };
  }
  const last = req.body.messages.at(-1) as { role: string; content: string };
  if (last.role === 'tool') return { text: 'Level two.', usage: { prompt_tokens: 30, completion_tokens: 3 } };
  if (last.content === 'Observe')
    return {
      toolCalls: [{ id: 'c2', name: 'action', arguments: { type: 'observation', payload: { level: 2 } } }],
      usage: { prompt_tokens: 12, completion_tokens: 2 },
    };
  return { text: last.content === 'First question' ? 'Better first answer.' : 'Hi again.', usage: { prompt_tokens: 8, completion_tokens: 3 } };
};

/** Three real turns of tool-agent in two sessions: a question, a follow-up that calls a tool, and a question elsewhere. */
async function history(user: Caller) {
  await registerAgent(user, TOOL_AGENT);
  env.fake.enqueue({ text: 'First answer.', usage: { prompt_tokens: 10, completion_tokens: 2 } });
  const first = await chat(env.server.url, user, { content: 'First question', agent: 'tool-agent' });
  const sessionId = first.sent.session.id;
  env.fake.enqueue(
    {
      toolCalls: [{ id: 'c1', name: 'action', arguments: { type: 'observation', payload: { level: 1 } } }],
      usage: { prompt_tokens: 10, completion_tokens: 2 },
    },
    { text: 'Level one.', usage: { prompt_tokens: 20, completion_tokens: 4 } },
  );
  const tool = await chat(env.server.url, user, { content: 'Observe', sessionId, agent: 'tool-agent' });
  env.fake.enqueue({ text: 'Hi.', usage: { prompt_tokens: 5, completion_tokens: 1 } });
  const other = await chat(env.server.url, user, { content: 'Hello there', agent: 'tool-agent' });
  for (const t of [first, tool, other]) expect(t.turn.status).toBe('COMPLETED');
  return { sessions: [sessionId, other.sent.session.id], turns: [first.turn.id, tool.turn.id, other.turn.id] };
}

async function fromTurns(user: Caller, input: CreateDatasetFromTurnsInput) {
  return (await user.data(CreateDatasetFromTurnsDocument, { input })).createDatasetFromTurns;
}

async function regress(user: Caller, input: RunRegressionInput) {
  return (await user.data(RunRegressionDocument, { input })).runRegression;
}

async function messagesOf(user: Caller, sessionId: string) {
  return (await user.data(ForkedSessionDocument, { id: sessionId })).session!.messages.edges.map((e) => [e.node.seq, e.node.type, e.node.content]);
}

async function untilDone(user: Caller, experimentId: string) {
  for (let i = 0; i < 1200; i++) {
    const { regression } = await user.data(RegressionDocument, { experimentId });
    if (regression.experiment.status === 'DONE' || regression.experiment.status === 'FAILED') return regression;
    await sleep(25);
  }
  throw new Error('timed out waiting for the regression');
}

/** What a user has: datasets, experiments and sessions (forks made by regressions are eval sessions, left out). */
async function holdings(user: Caller) {
  const [datasets, experiments, sessions] = await Promise.all([
    user.data(DatasetsDocument, {}),
    user.data(ExperimentsDocument, {}),
    user.data(SessionsDocument, { first: 100 }),
  ]);
  return { datasets: datasets.datasets.edges.length, experiments: experiments.experiments.edges.length, sessions: sessions.sessions.totalCount };
}

describe('real turns as a regression set', () => {
  it('replays three turns on another model, each in its own conversation, and judges both sides', async () => {
    const user = newUser(env.server.url);
    const { sessions, turns } = await history(user);
    const before = await Promise.all(sessions.map((id) => messagesOf(user, id)));

    const made = await fromTurns(user, { name: 'real turns', turnIds: turns });
    if (made.__typename !== 'CreateDatasetFromTurnsSuccess') throw new Error(JSON.stringify(made));
    const { dataset } = made;
    expect(dataset.examples.map((e) => [e.ord, e.input, e.expected, e.sourceTurnId])).toEqual([
      [1, 'First question', null, turns[0]],
      [2, 'Observe', null, turns[1]],
      [3, 'Hello there', null, turns[2]],
    ]);
    expect(dataset.examples[1]!.source).toMatchObject({
      agent: 'tool-agent',
      agentVersion: 1,
      context: [
        { type: 'user', content: 'First question' },
        { type: 'assistant', content: 'First answer.' },
      ],
      answer: 'Level one.',
      toolCalls: [{ name: 'action', arguments: { type: 'observation', payload: { level: 1 } }, isError: false }],
      usage: { inputTokens: 30, outputTokens: 6, requests: 2 },
    });
    expect(dataset.examples[0]!.source).toMatchObject({ context: [], answer: 'First answer.', toolCalls: [] });
    // Without ids: the caller's own completed turns of the agent, oldest first.
    const filtered = await fromTurns(user, { name: 'by agent', agent: 'tool-agent', limit: 2 });
    expect(filtered).toMatchObject({
      __typename: 'CreateDatasetFromTurnsSuccess',
      dataset: { exampleCount: 2, examples: [{ input: 'First question' }, { input: 'Observe' }] },
    });
    const held = await holdings(user);

    env.fake.enqueue(...Array.from({ length: 10 }, () => candidate));
    const queued = await regress(user, { datasetId: dataset.id, model: 'openai:other-model', evaluators: ['answer-quality'], concurrency: 1 });
    if (queued.__typename !== 'RunRegressionSuccess') throw new Error(JSON.stringify(queued));
    // The job may start before the payload is read (a busy machine): QUEUED or already RUNNING.
    expect(queued.experiment).toMatchObject({ status: expect.stringMatching(/^(QUEUED|RUNNING)$/), total: 3, regression: true });
    const report = await untilDone(user, queued.experiment.id);

    // Each replay asked the other model with its own turn's earlier conversation, and nothing else.
    const replays = env.fake.chatRequests.filter((r) => !judged(r) && r.body.model === 'other-model');
    expect(replays.map(withoutSystem)).toEqual([
      [{ role: 'user', content: 'First question' }],
      [
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer.' },
        { role: 'user', content: 'Observe' },
      ],
      [
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer.' },
        { role: 'user', content: 'Observe' },
        expect.objectContaining({ role: 'assistant', tool_calls: [expect.objectContaining({ id: 'c2' })] }),
        expect.objectContaining({ role: 'tool', tool_call_id: 'c2' }),
      ],
      [{ role: 'user', content: 'Hello there' }],
    ]);
    // The evaluator judged both sides of every example.
    expect(env.fake.chatRequests.filter(judged)).toHaveLength(6);

    // The original sessions are unchanged; the forks are eval sessions, out of the user's list.
    expect(await Promise.all(sessions.map((id) => messagesOf(user, id)))).toEqual(before);
    expect(await holdings(user)).toEqual({ ...held, experiments: held.experiments + 1 });
    const forks = report.examples.map((e) => e.comparison!.b.turn.session.id);
    expect(new Set([...forks, ...sessions]).size).toBe(5);

    expect(report.experiment).toMatchObject({ status: 'DONE', done: 3, total: 3 });
    expect(report.examples.map((e) => [e.ord, e.result.status, e.verdict, e.original.output, e.candidate!.output])).toEqual([
      [1, 'DONE', 'IMPROVED', 'First answer.', 'Better first answer.'],
      [2, 'DONE', 'REGRESSED', 'Level one.', 'Level two.'],
      [3, 'DONE', 'UNCHANGED', 'Hi.', 'Hi again.'],
    ]);
    const [first, tool] = report.examples;
    expect(first!.original.scores).toMatchObject({ 'answer-quality': { correctness: 0.5, pass: false } });
    expect(first!.candidate!.scores).toMatchObject({ 'answer-quality': { correctness: 0.9, pass: true } });
    expect(tool!.original).toMatchObject({ usage: { inputTokens: 30, outputTokens: 6, requests: 2 }, toolCalls: [{ name: 'action' }] });
    expect(tool!.candidate).toMatchObject({ usage: { inputTokens: 42, outputTokens: 5, requests: 2 }, toolCalls: [{ name: 'action' }] });
    expect(tool!.candidate!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(tool!.comparison).toMatchObject({
      textChanged: true,
      text: [
        { op: 'REMOVED', text: 'Level one.' },
        { op: 'ADDED', text: 'Level two.' },
      ],
      toolCalls: [{ op: 'CHANGED', name: 'action', changedArguments: ['payload'] }],
      b: { models: ['openai:other-model', 'openai:other-model'] },
    });
    expect(report.summary).toMatchObject({ total: 3, finished: 3, improved: 1, regressed: 1, unchanged: 1, tokensA: 12 + 36 + 6, tokensB: 11 + 47 + 11 });
    expect(report.summary.tokensDelta).toBe(report.summary.tokensB - report.summary.tokensA);
    expect(report.summary.latencyMsDelta).toBe(report.summary.latencyMsB - report.summary.latencyMsA);
  });

  it('refuses an empty selection, unknown or another user’s turns, a missing agent version and a hand-made set, storing nothing', async () => {
    const alice = newUser(env.server.url);
    const mallory = newUser(env.server.url, alice.headers['x-tenant-id']);
    const { turns } = await history(alice);
    const made = await fromTurns(alice, { name: 'mine', turnIds: turns.slice(0, 1) });
    if (made.__typename !== 'CreateDatasetFromTurnsSuccess') throw new Error(JSON.stringify(made));
    const byHand = (await alice.data(CreateDatasetDocument, { input: { name: 'by hand', examples: [{ input: 'Q' }] } })).createDataset;
    if (byHand.__typename !== 'CreateDatasetSuccess') throw new Error(JSON.stringify(byHand));
    const [aliceHeld, malloryHeld] = await Promise.all([holdings(alice), holdings(mallory)]);

    expect(await fromTurns(alice, { name: 'none', agent: 'nobody' })).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['input'] }] });
    expect(await fromTurns(alice, { name: 'none', since: new Date(Date.now() + 60_000).toISOString() })).toMatchObject({ __typename: 'ValidationError' });
    expect(await fromTurns(alice, { name: 'unknown', turnIds: [turns[0]!, encodeGlobalID('Turn', MISSING)] })).toMatchObject({ __typename: 'NotFoundError' });
    expect(await fromTurns(alice, { name: 'not a turn', turnIds: ['not an id'] })).toMatchObject({ __typename: 'ValidationError' });
    expect(await fromTurns(mallory, { name: 'theirs', turnIds: [turns[0]!] })).toMatchObject({ __typename: 'NotFoundError' });
    // Mallory has no turns of her own to take either.
    expect(await fromTurns(mallory, { name: 'mine?' })).toMatchObject({ __typename: 'ValidationError' });

    const input = { datasetId: made.dataset.id, evaluators: ['answer-quality'] };
    expect(await regress(alice, { ...input, agentVersion: 9 })).toMatchObject({
      __typename: 'ValidationError',
      issues: [{ path: ['input', 'agentVersion'], message: 'tool-agent has no version 9' }],
    });
    expect(await regress(alice, { ...input, agent: 'nobody' })).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['input', 'agent'] }] });
    expect(await regress(alice, { ...input, model: 'nowhere:model' })).toMatchObject({ __typename: 'ValidationError' });
    expect(await regress(alice, { ...input, datasetId: byHand.dataset.id })).toMatchObject({
      __typename: 'ValidationError',
      issues: [{ path: ['input', 'datasetId'] }],
    });
    expect(await regress(mallory, input)).toMatchObject({ __typename: 'NotFoundError' });
    expect(await regress(alice, { ...input, datasetId: encodeGlobalID('Dataset', MISSING) })).toMatchObject({ __typename: 'NotFoundError' });

    expect(await Promise.all([holdings(alice), holdings(mallory)])).toEqual([aliceHeld, malloryHeld]);
    expect(env.fake.chatRequests.filter((r) => r.body.model !== 'fake-model')).toEqual([]);
  });
});

const root = fileURLToPath(new URL('../../', import.meta.url));

/** `remgraph <args>` as the user runs it: through a pipe, or on a pseudo-terminal (util-linux \`script\`). */
function cli(args: string[], user: Caller, tty = false): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const argv = [process.execPath, REMGRAPH_BIN, ...args, '--url', env.server.url];
  const command = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const envVars = { ...process.env, NO_COLOR: '1', REMGRAPH_USER: user.headers['x-user-id']!, REMGRAPH_TENANT: user.headers['x-tenant-id']! };
  const proc = tty
    ? spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, env: envVars, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(argv[0]!, argv.slice(1), { cwd: root, env: envVars, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk) => (stdout += chunk));
  proc.stderr.on('data', (chunk) => (stderr += chunk));
  proc.stdin.end();
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout: stripVTControlCharacters(stdout).replace(/\r/g, ''), stderr })));
}

describe('remgraph datasets from-turns and remgraph regress', () => {
  it('make a set from a turn, replay it with progress, then print a table on a terminal and JSON through a pipe', async () => {
    const user = newUser(env.server.url);
    const { turns } = await history(user);
    const made = await cli(['datasets', 'from-turns', '--name', 'from the cli', '--turn', turns[2]!], user);
    expect(made).toMatchObject({ code: 0, stderr: '' });
    const dataset = JSON.parse(made.stdout) as { id: string; examples: number };
    expect(dataset).toMatchObject({ name: 'from the cli', examples: 1 });

    env.fake.enqueue(candidate, candidate, candidate);
    const shown = await cli(['regress', dataset.id, '--model', 'openai:other-model', '--evaluator', 'answer-quality'], user, true);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/regression \S+: 1 example\(s\)/);
    expect(shown.stdout).toContain('1/1 examples');
    expect(shown.stdout).toMatch(/example\s+verdict\s+score\s+tokens\s+latency\n1 Hello there\s+UNCHANGED\s+0\.90 → 0\.90\s+6 → 11\s+\d+ ms → \d+ ms/);
    expect(shown.stdout).toMatch(/1\/1 replayed: 0 improved, 0 regressed, 1 unchanged\ntokens 6 → 11 \(\+5\) {2}latency \d+ ms → \d+ ms/);

    env.fake.enqueue(candidate, candidate, candidate);
    const piped = await cli(['regress', dataset.id, '--model', 'openai:other-model'], user);
    expect(piped.code).toBe(0);
    const report = JSON.parse(piped.stdout) as {
      summary: { unchanged: number; tokensDelta: number };
      examples: { verdict: string; candidate: { output: string } }[];
    };
    expect(report.summary).toMatchObject({ unchanged: 1, tokensDelta: 5 });
    expect(report.examples).toMatchObject([{ verdict: 'UNCHANGED', candidate: { output: 'Hi again.' } }]);

    const refused = await cli(['regress', dataset.id, '--agent-version', '7'], user);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe('remgraph: VALIDATION_FAILED: input.agentVersion: tool-agent has no version 7\n');
  });
});
