/**
 * A model without json_schema support behind every caller of structured output: the first refusal
 * switches the model to the output tool (`final_result`) for the rest of the process, and
 * extract, structured agents, the routing classifier, dreaming and evaluators all get their
 * answers through it without knowing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { chat, contentOf, registerAgent, useAgentServer } from '../support/agents.js';
import type { RecordedRequest, Script } from '../support/fake-openai.js';
import {
  CreateDatasetDocument,
  CreateRoutedSessionDocument,
  DreamDocument,
  ExperimentDocument,
  ExtractDocument,
  JobDocument,
  RunExperimentDocument,
  TurnRoutingDocument,
} from '../generated/graphql.js';

const env = useAgentServer({ JOB_KINDS: 'dream,experiment', JOB_POLL_MS: '100', EPHEMERAL_TURN_RETENTION_MS: '0' });

const REFUSAL = "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.";
const toolNames = (r: RecordedRequest): string[] => (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
const viaTool = (r: RecordedRequest) => toolNames(r).includes('final_result');

/** The fake model as a server without json_schema: a 400 for it, else the answer as a final_result call. */
const withoutJsonSchema =
  (answer: (req: RecordedRequest) => unknown): Script =>
  (req) =>
    req.body.response_format?.type === 'json_schema'
      ? { status: 400, error: { message: REFUSAL, param: 'response_format' } }
      : { toolCalls: [{ name: 'final_result', arguments: answer(req) as Record<string, unknown> }] };

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read();
    if (done(value)) return value;
    await sleep(50);
  }
  throw new Error('timed out');
}

describe('structured output through the output tool', () => {
  // First in the file: its refusal is the one that switches the model for every test after it.
  it('extract: after the refusal the same request is asked through final_result, forced', async () => {
    const user = newUser(env.server.url);
    const schema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
    env.fake.enqueue(
      withoutJsonSchema(() => ({ total: 12 })),
      withoutJsonSchema(() => ({ total: 12 })),
    );
    const { extract } = await user.data(ExtractDocument, { input: { agent: 'general', content: 'Invoice total: 12', schema } });
    expect(extract).toMatchObject({ __typename: 'ExtractPayload', data: { total: 12 } });
    const [refused, asked] = env.fake.chatRequests;
    expect(refused!.body.response_format.type).toBe('json_schema');
    expect(asked!.body).not.toHaveProperty('response_format');
    expect(asked!.body.tools).toEqual([{ type: 'function', function: { name: 'final_result', description: expect.any(String), parameters: schema } }]);
    expect(asked!.body.tool_choice).toEqual({ type: 'function', function: { name: 'final_result' } });
  });

  it('an agent with an output schema and tools of its own: any tool required, the answer is the final_result arguments', async () => {
    const user = newUser(env.server.url);
    await registerAgent(
      user,
      'name: note-taker\ndescription: You take notes.\nstructured_output: true\ntools:\n  - name: register_metadata\nproperties:\n  summary:\n    type: string\nrequired: [summary]\n',
    );
    env.fake.enqueue(withoutJsonSchema(() => ({ summary: 'Lunch on Friday' })));
    const { turn, events } = await chat(env.server.url, user, { content: 'We have lunch on Friday.', agent: 'note-taker' });
    expect(turn.status).toBe('COMPLETED');
    expect(contentOf(events)).toBe('{"summary":"Lunch on Friday"}');
    const request = env.fake.chatRequests[0]!.body;
    expect(request).not.toHaveProperty('response_format');
    expect(request.tool_choice).toBe('required');
    expect(toolNames(env.fake.chatRequests[0]!)).toEqual(['register_metadata', 'final_result']);
  });

  it('the routing classifier picks the agent through final_result', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: billing\ndescription: You handle invoices and refunds.\n');
    const created = await user.data(CreateRoutedSessionDocument, { input: { routing: true } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('no session');
    env.fake.enqueue(
      withoutJsonSchema(() => ({ agent: 'billing', reason: 'a refund' })),
      { text: 'Refund on its way.' },
    );
    const { sent } = await chat(env.server.url, user, { content: 'I want a refund', sessionId: created.createSession.session.id });
    const { turn } = await user.data(TurnRoutingDocument, { id: sent.turn.id });
    expect(turn).toMatchObject({ agent: 'billing', routedBy: 'CLASSIFIER', status: 'COMPLETED' });
    expect(viaTool(env.fake.chatRequests[0]!)).toBe(true);
  });

  it('dreaming consolidates a session through final_result', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Noted.' });
    await chat(env.server.url, user, { content: 'I meet Sarah Chen on Monday about the Q3 budget.' });
    env.fake.enqueue(
      withoutJsonSchema(() => ({
        moments: [{ key: 'q3 budget meeting', summary: 'Planned the Q3 budget with Sarah Chen.', topic_tags: ['budget'], entity_keys: ['sarah-chen'] }],
        entities: [{ key: 'sarah-chen', name: 'Sarah Chen', entity_type: 'person' }],
        edges: [],
      })),
    );
    const { dream } = await user.data(DreamDocument, { input: null });
    if (dream.__typename !== 'DreamSuccess') throw new Error(JSON.stringify(dream));
    const job = await until(
      async () => (await user.data(JobDocument, { id: dream.job.id })).job!,
      (j) => j.status === 'DONE' || j.status === 'FAILED',
    );
    expect(job).toMatchObject({ status: 'DONE', error: null, result: { sessions: [{ moments: ['q3-budget-meeting'], entities: ['sarah-chen'] }] } });
    expect(viaTool(env.fake.chatRequests[1]!)).toBe(true);
  });

  it('an evaluator scores an experiment’s answer through final_result', async () => {
    const user: Caller = newUser(env.server.url);
    const { createDataset } = await user.data(CreateDatasetDocument, { input: { name: 'golden', examples: [{ input: 'Q1', expected: 'A1' }] } });
    if (createDataset.__typename !== 'CreateDatasetSuccess') throw new Error(JSON.stringify(createDataset));
    const answerOrScore: Script = (req) =>
      viaTool(req)
        ? withoutJsonSchema(() => ({ correctness: 1, completeness: 1, groundedness: 1, pass: true, reasoning: 'matches' }))
        : { text: 'the answer is A1' };
    env.fake.enqueue(answerOrScore, answerOrScore);
    const { runExperiment } = await user.data(RunExperimentDocument, {
      input: { agent: 'general', datasetId: createDataset.dataset.id, evaluators: ['answer-quality'], concurrency: 1 },
    });
    if (runExperiment.__typename !== 'RunExperimentSuccess') throw new Error(JSON.stringify(runExperiment));
    const experiment = await until(
      async () => (await user.data(ExperimentDocument, { id: runExperiment.experiment.id })).experiment!,
      (e) => e.status === 'DONE' || e.status === 'FAILED',
    );
    expect(experiment.results).toMatchObject([
      { status: 'DONE', output: 'the answer is A1', scores: { 'answer-quality': { correctness: 1, pass: true, reasoning: 'matches' } } },
    ]);
    expect(env.fake.chatRequests.filter(viaTool)).toHaveLength(1);
  });
});
