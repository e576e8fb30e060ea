// Baseline for bench/turn-streaming.ts: graphql-yoga + graphql-ws with one subscription that
// yields `n` small events as fast as it can, and nothing else (no database, no agent).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';

const yoga = createYoga({
  schema: createSchema({
    typeDefs: 'type Query { ok: Boolean } type Tick { seq: Int! delta: String! } type Subscription { ticks(n: Int!): Tick! }',
    resolvers: {
      Subscription: {
        ticks: {
          subscribe: async function* (_: unknown, { n }: { n: number }) {
            for (let seq = 1; seq <= n; seq++) yield { ticks: { seq, delta: `w${seq} ` } };
          },
        },
      },
    },
  }),
  logging: false,
});
const server = createServer(yoga);
const wss = new WebSocketServer({ server, path: '/graphql' });
useServer(
  {
    execute: (args: any) => args.rootValue.execute(args),
    subscribe: (args: any) => args.rootValue.subscribe(args),
    onSubscribe: async (ctx, _id, payload) => {
      const { schema, execute, subscribe, contextFactory, parse } = yoga.getEnveloped({ ...ctx, req: ctx.extra.request, socket: ctx.extra.socket, params: payload });
      return { schema, operationName: payload.operationName, document: parse(payload.query), variableValues: payload.variables, contextValue: await contextFactory(), rootValue: { execute, subscribe } };
    },
  },
  wss,
);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`);
});
process.on('SIGTERM', () => process.exit(0));
