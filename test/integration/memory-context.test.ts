import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { chat, useAgentServer } from '../support/agents.js';
import { UpsertEntityDocument } from '../generated/graphql.js';

const env = useAgentServer();

/** What the model was sent in the `i`th chat request, as role: content lines. */
const sentTo = (i: number): { role: string; content: string }[] => env.fake.chatRequests[i]!.body.messages;

async function readProfile(user: Caller): Promise<any> {
  const client = new Client({ name: 'remgraph-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(env.server.url.replace(/\/graphql$/, '/mcp')), { requestInit: { headers: user.headers } }));
  try {
    const read = await client.readResource({ uri: `user://profile/${user.headers['x-user-id']}` });
    return JSON.parse((read.contents[0] as { text: string }).text);
  } finally {
    await client.close();
  }
}

describe('memory and context', () => {
  it('reads one profile entity, user-<id>, for turns and for the MCP user://profile resource', async () => {
    const user = newUser(env.server.url);
    const key = `user-${user.headers['x-user-id']}`;
    const written = await user.data(UpsertEntityDocument, { input: { key, name: 'Ada', entityType: 'profile', summary: 'Prefers short answers.' } });
    expect(written.upsertEntity.__typename).toBe('UpsertEntitySuccess');

    env.fake.enqueue({ text: 'Hi Ada.' });
    await chat(env.server.url, user, { content: 'Hello' });
    const memory = sentTo(0).filter((m) => m.role === 'system' && m.content.startsWith('[Memory: user profile'));
    expect(memory).toHaveLength(1);
    expect(memory[0]!.content.split('\n')).toEqual([`[Memory: user profile (REM LOOKUP "${key}")]`, 'Ada', 'Prefers short answers.']);

    const resource = await readProfile(user);
    expect(resource.profile).toMatchObject({ key, name: 'Ada', summary: 'Prefers short answers.' });
  });
});
