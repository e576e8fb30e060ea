import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { corpusOf, ingestDocument } from '../support/documents.js';
import { registerAgent, useAgentServer } from '../support/agents.js';
import { ExtractStoredDocument, type ExtractInput } from '../generated/graphql.js';

const env = useAgentServer({ INGEST_CHUNK_CHARS: '400', INGEST_CHUNK_OVERLAP_CHARS: '0' });

const EXTRACTOR = `
name: extractor
description: You extract data from contracts.
temperature: 0.7
`;

const LEASE = `# Office lease

The tenant pays rent of 2000 euros on the first day of each month. The lease starts on 1 March 2026.
`;

type Message = { role: string; content: string };
const request = (i = -1) =>
  env.fake.chatRequests.at(i)!.body as {
    messages: Message[];
    temperature?: number;
    max_tokens?: number;
    max_completion_tokens?: number;
    response_format: { json_schema: { schema: unknown } };
  };

async function setUp(user: Caller) {
  await registerAgent(user, EXTRACTOR);
  const lease = await ingestDocument(env.server.url, user, { name: 'lease.md', bytes: LEASE, type: 'text/markdown' });
  const corpus = await corpusOf(user, 'Contracts', [lease.id]);
  return { lease, corpus };
}

async function extract(user: Caller, input: Omit<ExtractInput, 'agent'>) {
  const res = (await user.data(ExtractStoredDocument, { input: { agent: 'extractor', ...input } })).extract;
  return res;
}

describe('extraction from what is stored', () => {
  it('reads a short document whole, with the seed’s verification prompt, and answers each primitive type', async () => {
    const user = newUser(env.server.url);
    const { lease } = await setUp(user);
    const cases: [ExtractInput['type'], unknown][] = [
      ['STRING', 'lease'],
      ['INTEGER', 2000],
      ['NUMBER', 2000.5],
      ['BOOLEAN', true],
      ['STRING_LIST', ['tenant', 'landlord']],
      ['INTEGER_LIST', [1, 2]],
      ['NUMBER_LIST', [1.5]],
      ['BOOLEAN_LIST', [false]],
    ];
    for (const [type, value] of cases) {
      env.fake.enqueue({ json: { value } });
      const res = await extract(user, { content: 'What is asked', document: lease.id, type });
      expect(res, String(type)).toMatchObject({ __typename: 'ExtractPayload', data: value, failure: null, source: { mode: 'WHOLE', passages: 0 } });
      const sent = request();
      expect(sent.messages.at(-1)!.content).toContain('The tenant pays rent of 2000 euros');
      expect(sent.messages[0]!.content).toContain('Never use placeholder values');
      expect(sent.response_format.json_schema.schema).toMatchObject({ properties: { value: {} }, required: ['value'] });
    }
    // A wrong type is repaired once, then refused.
    env.fake.enqueue({ json: { value: 'two thousand' } }, { json: { value: 'still text' } });
    expect((await extract(user, { content: 'Rent?', document: lease.id, type: 'INTEGER' })).__typename).toBe('ValidationError');
  });

  it('applies the per-call options: system prompt, temperature, max tokens, extra context', async () => {
    const user = newUser(env.server.url);
    const { lease, corpus } = await setUp(user);
    env.fake.enqueue({ json: { value: '2026-03-01' } });
    const res = await extract(user, {
      content: 'When does the lease start?',
      document: lease.id,
      corpus,
      type: 'STRING',
      systemPrompt: 'You are a precise paralegal.',
      temperature: 0.1,
      maxTokens: 300,
      extraContext: 'Dates are in the first section.',
    });
    expect(res).toMatchObject({ data: '2026-03-01' });
    const sent = request();
    expect(sent.messages[0]!.content).toBe('You are a precise paralegal.');
    expect(sent.messages.some((m) => m.content === 'Additional context:\nDates are in the first section.')).toBe(true);
    expect(sent.temperature).toBe(0.1);
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(300);
  });

  it('reads a corpus by its passages most similar to the prompt, with a JSON Schema', async () => {
    const user = newUser(env.server.url);
    const { corpus } = await setUp(user);
    env.fake.enqueue({ json: { rent: 2000 } });
    const schema = { type: 'object', properties: { rent: { type: ['integer', 'null'] } }, required: ['rent'], additionalProperties: false };
    const res = await extract(user, { content: 'What rent does the tenant pay?', corpus, schema });
    expect(res).toMatchObject({ __typename: 'ExtractPayload', data: { rent: 2000 }, source: { mode: 'PASSAGES' } });
    if (res.__typename !== 'ExtractPayload') throw new Error();
    expect(res.source!.passages).toBeGreaterThan(0);
    expect(request().messages.at(-1)!.content).toContain('[lease.md]');
  });

  it('gives null data with nullOnFailure, and refuses bad input with a typed error before any model call', async () => {
    const user = newUser(env.server.url);
    const { lease, corpus } = await setUp(user);
    env.fake.enqueue({ json: { value: 'x' } }, { json: { value: 'y' } });
    const res = await extract(user, { content: 'Rent?', document: lease.id, type: 'INTEGER', nullOnFailure: true });
    expect(res).toMatchObject({ __typename: 'ExtractPayload', data: null });
    if (res.__typename !== 'ExtractPayload') throw new Error();
    expect(res.failure).toContain('did not match');

    const calls = env.fake.chatRequests.length;
    const other = newUser(env.server.url, user.headers['x-tenant-id']);
    await registerAgent(other, EXTRACTOR);
    const loose = await ingestDocument(env.server.url, user, { name: 'loose.md', bytes: 'Not in the corpus.' });
    expect(
      (await other.data(ExtractStoredDocument, { input: { agent: 'extractor', content: 'x', document: lease.id, type: 'STRING' } })).extract.__typename,
    ).toBe('NotFoundError');
    expect((await extract(user, { content: 'x', document: loose.id, corpus, type: 'STRING' })).__typename).toBe('ValidationError');
    expect((await extract(user, { content: 'x', document: lease.id, type: 'STRING', schema: { type: 'object' } })).__typename).toBe('ValidationError');
    expect((await extract(user, { content: 'x', document: lease.id, type: 'STRING', temperature: 3 })).__typename).toBe('ValidationError');
    expect(env.fake.chatRequests.length).toBe(calls);
  });
});
