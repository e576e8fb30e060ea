// Baseline for bench/idle-followers.ts: graphql-yoga with graphql-ws (executing through yoga's
// envelop, as remgraph's src/graphql/server.ts does) and a `sessionEvents(sessionId)` subscription
// that never yields: what holding an idle follower costs with no database, auth, hub or relay.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga, Repeater } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';

/** Yields nothing until the client stops it (then returns at once, as remgraph's streams do). */
const never = () => new Repeater<{ sessionEvents: { seq: number } }>(async (_push, stop) => void (await stop));

const yoga = createYoga({
  schema: createSchema({
    typeDefs: 'type Event { seq: Int! } type Query { ok: Boolean } type Subscription { sessionEvents(sessionId: ID!): Event! }',
    resolvers: { Subscription: { sessionEvents: { subscribe: never } } },
  }),
  logging: false,
  graphiql: false,
});
const server = createServer(yoga);
const wsServer = new WebSocketServer({ server, path: yoga.graphqlEndpoint });
useServer(
  {
    execute: (args: any) => args.rootValue.execute(args),
    subscribe: (args: any) => args.rootValue.subscribe(args),
    onSubscribe: async (ctx, _id, payload) => {
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
        ...ctx,
        req: ctx.extra.request,
        socket: ctx.extra.socket,
        params: payload,
      });
      const args = {
        schema,
        operationName: payload.operationName,
        document: parse(payload.query),
        variableValues: payload.variables,
        contextValue: await contextFactory(),
        rootValue: { execute, subscribe },
      };
      const errors = validate(args.schema, args.document);
      return errors.length ? errors : args;
    },
  },
  wsServer,
);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`);
});
process.on('SIGTERM', () => process.exit(0));
