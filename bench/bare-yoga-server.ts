// Baseline for the read-throughput comparison in bench/rem.ts: graphql-yoga over node:http with a
// `session(id)` field that returns a constant (no database, no auth, no plugins).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';

const session = { id: 'U2Vzc2lvbjox', name: 'bench', updatedAt: new Date().toISOString() };
const yoga = createYoga({
  schema: createSchema({
    typeDefs: 'type Session { id: ID! name: String! updatedAt: String! } type Query { session(id: ID!): Session }',
    resolvers: { Query: { session: () => session } },
  }),
  logging: false,
});
const server = createServer(yoga);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`);
});
process.on('SIGTERM', () => process.exit(0));
