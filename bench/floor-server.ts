// The floor for bench/turn-streaming.ts: the least a server on remgraph's stack (graphql-yoga,
// graphql-ws, the openai SDK) can do for the same operations. sendMessage returns a turn id at once
// and streams the model in the background into the turn's in-memory events; turnEvents replays
// them from `after`, then follows until the final event. No database, auth, routing, memory or
// history: whatever remgraph costs above this is the price of those.
// The types mirror remgraph's schema just enough for the bench's documents to run unchanged.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createSchema, createYoga } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import OpenAI from 'openai';
import { WebSocketServer } from 'ws';

type FloorEvent =
  | { __typename: 'ContentEvent'; seq: number; turnId: string; delta: string }
  | { __typename: 'FinalEvent'; seq: number; turnId: string; status: 'COMPLETED' | 'ERROR'; content: string | null };

interface Turn {
  events: FloorEvent[];
  /** Subscribers waiting for the next event. */
  waiting: (() => void)[];
  /** A follower has read it to its final event. */
  followed?: boolean;
}

const model = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? 'floor', maxRetries: 0 });
const modelName = process.env.FLOOR_MODEL ?? 'fake-model';
const turns = new Map<string, Turn>();
/**
 * Ended turns stay for late followers as remgraph keeps them in memory (src/events/event-hub.ts):
 * 30 s at most, and 20,000 events in all, oldest out first. Kept forever, they would make the
 * floor's heap, and so its garbage collector's work, grow with every turn served, and a long run
 * would flatter remgraph. Only a turn some follower has read to its end leaves for the count:
 * remgraph reads an evicted turn from its database, which the floor has not (in a 500-turn burst
 * on a slow machine, 61 followers came after their turns had left and got nothing).
 */
const KEEP_ENDED_MS = 30_000;
const KEEP_ENDED_EVENTS = 20_000;
/** Ended turns in the order they ended: when, and how many events they hold. */
const ended = new Map<string, { at: number; events: number }>();
let endedEvents = 0;

function keepEnded(turnId: string, events: number) {
  const now = Date.now();
  ended.set(turnId, { at: now, events });
  endedEvents += events;
  for (const [id, entry] of ended) {
    const expired = now - entry.at > KEEP_ENDED_MS;
    if (!expired && endedEvents <= KEEP_ENDED_EVENTS) break;
    if (!expired && !turns.get(id)?.followed) continue;
    ended.delete(id);
    turns.delete(id);
    endedEvents -= entry.events;
  }
}

function append(turn: Turn, event: FloorEvent) {
  turn.events.push(event);
  for (const wake of turn.waiting.splice(0)) wake();
  if (event.__typename === 'FinalEvent') keepEnded(event.turnId, turn.events.length);
}

async function stream(turnId: string, turn: Turn, content: string) {
  let text = '';
  try {
    const chunks = await model.chat.completions.create({
      model: modelName,
      messages: [{ role: 'user', content }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of chunks) {
      const delta = chunk.choices[0]?.delta?.content;
      if (!delta) continue;
      text += delta;
      append(turn, { __typename: 'ContentEvent', seq: turn.events.length + 1, turnId, delta });
    }
    append(turn, { __typename: 'FinalEvent', seq: turn.events.length + 1, turnId, status: 'COMPLETED', content: text });
  } catch {
    append(turn, { __typename: 'FinalEvent', seq: turn.events.length + 1, turnId, status: 'ERROR', content: null });
  }
}

async function* follow(turn: Turn, after: number) {
  for (let next = after; ;) {
    while (next < turn.events.length) {
      const event = turn.events[next++]!;
      yield { turnEvents: event };
      if (event.__typename === 'FinalEvent') {
        turn.followed = true;
        return;
      }
    }
    await new Promise<void>((resolve) => turn.waiting.push(resolve));
  }
}

const yoga = createYoga({
  schema: createSchema({
    typeDefs: /* GraphQL */ `
      type Query {
        ok: Boolean
      }
      interface Error {
        code: String!
        message: String!
      }
      type NotFoundError implements Error {
        code: String!
        message: String!
      }
      type Turn {
        id: ID!
      }
      type SendMessagePayload {
        turn: Turn!
      }
      union SendMessageResult = SendMessagePayload | NotFoundError
      input SendMessageInput {
        content: String!
      }
      enum TurnStatus {
        COMPLETED
        ERROR
      }
      type ContentEvent {
        seq: Int!
        turnId: ID!
        delta: String!
      }
      type FinalEvent {
        seq: Int!
        turnId: ID!
        status: TurnStatus!
        content: String
      }
      union AgentEvent = ContentEvent | FinalEvent
      type Mutation {
        sendMessage(input: SendMessageInput!): SendMessageResult!
      }
      type Subscription {
        turnEvents(turnId: ID!, after: Int): AgentEvent!
      }
    `,
    resolvers: {
      Mutation: {
        sendMessage: (_: unknown, { input }: { input: { content: string } }) => {
          const id = randomUUID();
          const turn: Turn = { events: [], waiting: [] };
          turns.set(id, turn);
          void stream(id, turn, input.content);
          return { __typename: 'SendMessagePayload', turn: { id } };
        },
      },
      Subscription: {
        turnEvents: {
          subscribe: async function* (_: unknown, { turnId, after }: { turnId: string; after?: number | null }) {
            const turn = turns.get(turnId);
            if (turn) yield* follow(turn, after ?? 0);
          },
        },
      },
    },
  }),
  logging: false,
});
const server = createServer(yoga);
useServer(
  {
    execute: (args: any) => args.rootValue.execute(args),
    subscribe: (args: any) => args.rootValue.subscribe(args),
    onSubscribe: async (ctx, _id, payload) => {
      const { schema, execute, subscribe, contextFactory, parse } = yoga.getEnveloped({
        ...ctx,
        req: ctx.extra.request,
        socket: ctx.extra.socket,
        params: payload,
      });
      return {
        schema,
        operationName: payload.operationName,
        document: parse(payload.query),
        variableValues: payload.variables,
        contextValue: await contextFactory(),
        rootValue: { execute, subscribe },
      };
    },
  },
  new WebSocketServer({ server, path: '/graphql' }),
);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`);
});
process.on('SIGTERM', () => process.exit(0));
