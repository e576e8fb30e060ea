import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerAgent, useAgentServer } from '../support/agents.js';
import { newUser } from '../support/client.js';
import { ExtractDocument, RegisterAgentDocument } from '../generated/graphql.js';

const env = useAgentServer();

const person = z.object({ name: z.string(), tags: z.array(z.string()), pair: z.tuple([z.string(), z.number()]) });
// zod 4 writes draft 2020-12 ($schema, prefixItems for the tuple), as most current tools do.
const personSchema = z.toJSONSchema(person);

describe('JSON Schema drafts', () => {
  it('zod 4 emits draft 2020-12', () => {
    expect(personSchema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema' });
    expect(JSON.stringify(personSchema)).toContain('prefixItems');
  });

  it('LangChain withStructuredOutput(zod) gets its parsed object through /v1', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ json: { name: 'Ada', tags: ['math'], pair: ['x', 1] } });
    const model = new ChatOpenAI({
      model: 'general',
      apiKey: 'unused',
      configuration: { baseURL: env.server.url.replace(/\/graphql$/, '/v1'), defaultHeaders: user.headers },
    });
    const answer = await model.withStructuredOutput(person).invoke('Who is Ada?');

    expect(answer).toEqual({ name: 'Ada', tags: ['math'], pair: ['x', 1] });
    expect(env.fake.chatRequests[0]!.body.response_format.json_schema.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema' });
  });

  it('extract takes a draft 2020-12 schema and validates the reply under it', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ json: { name: 'Ada', tags: [], pair: [1, 'x'] } }, { json: { name: 'Ada', tags: [], pair: ['x', 1] } });
    const { extract } = await user.data(ExtractDocument, { input: { agent: 'general', content: 'Ada', schema: personSchema } });

    expect(extract).toMatchObject({ __typename: 'ExtractPayload', data: { name: 'Ada', tags: [], pair: ['x', 1] } });
    // The first reply broke prefixItems: a draft-07 validator would not have seen it.
    expect(env.fake.chatRequests[1]!.body.messages.at(-1).content).toContain('/pair/0 must be string');
  });

  it('extract takes a draft-07 schema that says so', async () => {
    const user = newUser(env.server.url);
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    env.fake.enqueue({ json: { n: 3 } });
    const { extract } = await user.data(ExtractDocument, { input: { agent: 'general', content: 'three', schema } });
    expect(extract).toMatchObject({ __typename: 'ExtractPayload', data: { n: 3 } });
  });

  it('an agent’s properties may be draft 2020-12 (pasted from zod), and are still checked', async () => {
    const user = newUser(env.server.url);
    const pair = JSON.stringify(z.toJSONSchema(z.tuple([z.string(), z.number()])));
    const agent = await registerAgent(user, `name: pairs\ndescription: Pairs.\nstructured_output: true\nproperties:\n  pair: ${pair}\nrequired: [pair]\n`);
    expect(agent.agent.name).toBe('pairs');

    const broken = await user.data(RegisterAgentDocument, {
      yaml: `name: broken\ndescription: Broken.\nproperties:\n  pair: { $schema: "https://json-schema.org/draft/2020-12/schema", type: array, prefixItems: { type: string } }\n`,
    });
    expect(broken.registerAgent).toMatchObject({ __typename: 'ValidationError' });
  });
});
