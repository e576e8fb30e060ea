import { ApolloClient, HttpLink, InMemoryCache, gql, split } from '@apollo/client/core';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { loadDevMessages, loadErrorMessages } from '@apollo/client/dev';
import { getMainDefinition } from '@apollo/client/utilities';
import type { GraphQLUnionType } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { encodeGlobalID } from '../../src/http/global-ids.js';
import { schema } from '../../src/graphql/schema.js';
import { registerAgent, send, useAgentServer } from '../support/agents.js';
import { newUser, type Caller } from '../support/client.js';

const env = useAgentServer();
// Apollo's warnings are codes and a link unless its messages are loaded, as its docs advise in development.
loadDevMessages();
loadErrorMessages();

// The event union's members from the schema itself, as docs/clients.md derives them, so a new event
// type cannot be missed here.
const EVENT_TYPES = (schema.getType('AgentEvent') as GraphQLUnionType).getTypes().map((type) => type.name);

const followDocument = (withId: boolean) =>
  gql(`
    subscription Follow($turnId: ID!) {
      turnEvents(turnId: $turnId) {
        __typename
        ... on TurnEvent { ${withId ? 'id' : ''} seq }
        ... on ContentEvent { delta }
        ... on ToolCallEvent { name }
      }
    }
  `);

/** Apollo Client 3 as docs/clients.md sets it up: HTTP for queries, graphql-ws for subscriptions. */
function apollo(user: Caller) {
  const ws = createClient({ url: env.server.url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: user.headers });
  const link = split(
    ({ query }) => {
      const main = getMainDefinition(query);
      return main.kind === 'OperationDefinition' && main.operation === 'subscription';
    },
    new GraphQLWsLink(ws),
    new HttpLink({ uri: env.server.url, headers: user.headers }),
  );
  const cache = new InMemoryCache({
    possibleTypes: { AgentEvent: EVENT_TYPES, TurnEvent: EVENT_TYPES },
    typePolicies: { Subscription: { fields: { turnEvents: { keyArgs: ['turnId'] } } } },
  });
  return { client: new ApolloClient({ link, cache }), cache, ws };
}

afterEach(() => {
  vi.restoreAllMocks();
});

type Seen = { __typename: string; id?: string; seq: number };

/** Follows a tool-using turn with Apollo; returns the events, the cache and what Apollo warned. */
async function followWithApollo(withId: boolean) {
  const user = newUser(env.server.url);
  await registerAgent(user, 'name: doer\ndescription: Do.\ntools:\n  - name: register_metadata\n');
  env.fake.enqueue({ toolCalls: [{ name: 'register_metadata', arguments: { confidence: 0.9 } }] }, { text: ['Done', ' now.'] });
  const warn = vi.spyOn(console, 'warn');
  const { client, cache, ws } = apollo(user);
  const sent = await send(user, { agent: 'doer', content: 'Go' });
  const seen: Seen[] = [];
  await new Promise<void>((resolve, reject) => {
    client.subscribe<{ turnEvents: Seen }>({ query: followDocument(withId), variables: { turnId: sent.turn.id } }).subscribe({
      next: (result) => seen.push(result.data!.turnEvents),
      error: reject,
      complete: resolve,
    });
  });
  await ws.dispose();
  return { seen, stored: cache.extract(), warnings: warn.mock.calls.flat().join('\n') };
}

describe('Apollo Client 3 with InMemoryCache', () => {
  it('follows a turn without a cache warning, each event kept under its own id', async () => {
    const { seen, stored, warnings } = await followWithApollo(true);

    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.map((e) => e.__typename)).toContain('ToolCallEvent');
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    for (const event of seen) expect(stored[`${event.__typename}:${event.id}`]).toMatchObject({ seq: event.seq });
    expect(warnings).not.toContain('Cache data may be lost');
  });

  it('warns without the id, which is why the recipe selects it', async () => {
    const { warnings } = await followWithApollo(false);
    expect(warnings).toContain('Cache data may be lost when replacing the');
    expect(warnings).toContain('Subscription.turnEvents');
  });

  it('node(id) with an id naming nothing answers null without an error', async () => {
    const user = newUser(env.server.url);
    const { client, ws } = apollo(user);
    const query = gql`
      query Node($id: ID!) {
        node(id: $id) {
          id
        }
      }
    `;
    for (const id of [encodeGlobalID('Session', crypto.randomUUID()), encodeGlobalID('Nope', 'x'), encodeGlobalID('TurnEvent', 'x:1')]) {
      const result = await client.query({ query, variables: { id }, errorPolicy: 'all', fetchPolicy: 'network-only' });
      expect(result.errors).toBeUndefined();
      expect(result.data).toEqual({ node: null });
    }
    await ws.dispose();
  });
});
