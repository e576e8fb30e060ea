import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, newUser, postGraphQL, type Caller, type GraphQLResponse } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { RemQueryDocument, ViewerDocument } from '../generated/graphql.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

const send = (user: Caller, query: string, variables?: Record<string, unknown>) => postGraphQL<unknown>(server.url, { query, variables }, user.headers);

function expectLimit(res: GraphQLResponse<unknown>, limit: string) {
  expect(res.body.errors?.[0]?.extensions, JSON.stringify(res.body)).toMatchObject({ code: 'LIMIT_EXCEEDED' });
  expect(JSON.stringify(res.body.errors)).toContain(limit);
  expect(res.body.data ?? null).toBeNull();
}

/** An entity of `user` whose `count` edges all point back at itself. */
async function selfLinkedEntity(user: Caller, count: number): Promise<string> {
  const key = `loop-${randomUUID()}`;
  await server.db.prisma.entity.create({
    data: {
      key,
      name: key,
      tenantId: user.headers['x-tenant-id']!,
      userId: user.headers['x-user-id']!,
      graphEdges: Array.from({ length: count }, () => ({ dst: key, rel_type: 'self', weight: 1 })),
    },
  });
  return key;
}

describe('operation limits', () => {
  it('refuses a selection nested deeper than MAX_QUERY_DEPTH', async () => {
    const user = newUser(server.url);
    const nested = 'graphEdges(first: 1) { target { '.repeat(8) + 'key' + ' } }'.repeat(8);
    expectLimit(await send(user, `{ entity(key: "a") { ${nested} } }`), 'depth');
  });

  it('refuses nested lists whose cost multiplies past MAX_QUERY_COST, however few rows exist', async () => {
    const user = newUser(server.url);
    const key = await selfLinkedEntity(user, 500);
    const levels = (n: number) => 'graphEdges { target { '.repeat(n) + 'key' + ' } }'.repeat(n);
    expectLimit(await send(user, `{ entity(key: "${key}") { ${levels(4)} } }`), 'MAX_QUERY_COST');
    // Asking for 100 edges a level through a variable costs the same as a literal.
    const viaVariable = await send(
      user,
      `query($n: Int) { entity(key: "${key}") { graphEdges(first: $n) { target { graphEdges(first: $n) { target { graphEdges(first: $n) { dst } } } } } } }`,
      { n: 100 },
    );
    expectLimit(viaVariable, 'MAX_QUERY_COST');
    // One level is fine and returns the first 20 of the 500 edges.
    const one = await send(user, `{ entity(key: "${key}") { graphEdges { target { key } } } }`);
    expect(one.body.errors).toBeUndefined();
    expect((one.body.data as { entity: { graphEdges: unknown[] } }).entity.graphEdges).toHaveLength(20);
  });

  it('refuses more aliases than MAX_QUERY_ALIASES', async () => {
    const user = newUser(server.url);
    const aliases = Array.from({ length: 21 }, (_, i) => `a${i}: viewer { userId }`).join(' ');
    expectLimit(await send(user, `{ ${aliases} }`), 'Aliases');
  });

  it('refuses a document of more than MAX_QUERY_TOKENS tokens', async () => {
    const user = newUser(server.url);
    const fields = Array.from({ length: 3100 }, () => 'userId').join(' ');
    expectLimit(await send(user, `{ viewer { ${fields} } }`), 'Token');
  });

  it('refuses more directives than MAX_QUERY_DIRECTIVES', async () => {
    const user = newUser(server.url);
    expectLimit(await send(user, `{ viewer { userId ${'@include(if: true) '.repeat(31)} } }`), 'Directives');
  });

  it('caps list arguments (nodes ids, as a literal or in variables) at MAX_LIST_ARGUMENT', async () => {
    const user = newUser(server.url);
    const ids = Array.from({ length: 101 }, (_, i) => `id${i}`);
    expectLimit(await send(user, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids }), 'MAX_LIST_ARGUMENT');
    expectLimit(await send(user, `{ nodes(ids: ${JSON.stringify(ids)}) { id } }`), 'MAX_LIST_ARGUMENT');
    const fine = await send(user, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: ids.slice(0, 100) });
    expect(fine.body.errors?.some((e) => e.extensions?.code === 'LIMIT_EXCEEDED')).toBeFalsy();
  });

  it('caps the keys of one LOOKUP at MAX_LIST_ARGUMENT', async () => {
    const user = newUser(server.url);
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}"`).join(', ');
    const refused = await user.request(RemQueryDocument, { query: `LOOKUP ${keys(101)}` });
    expect(errorCode(refused)).toBe('QUERY_SYNTAX');
    expect(refused.body.errors?.[0]?.message).toContain('LOOKUP takes at most 100 keys');
    const fine = await user.request(RemQueryDocument, { query: `LOOKUP ${keys(100)}` });
    expect(fine.body.errors).toBeUndefined();
  });

  it('runs one mutation at most MAX_SAME_MUTATION times per request: aliased sendMessage starts nothing', async () => {
    const user = newUser(server.url);
    const sends = Array.from({ length: 6 }, (_, i) => `s${i}: sendMessage(input: {content: "hi ${i}"}) { __typename }`).join(' ');
    expectLimit(await send(user, `mutation { ${sends} }`), 'MAX_SAME_MUTATION');
    // Spread through fragments too.
    const spread = await send(
      user,
      `mutation { ...A ...B } fragment A on Mutation { ${sends.split(' s3:')[0]} } fragment B on Mutation { s3:${sends.split(' s3:')[1]} }`,
    );
    expectLimit(spread, 'MAX_SAME_MUTATION');
    expect(await server.db.prisma.message.count({ where: { userId: user.headers['x-user-id'] } })).toBe(0);
    expect(await server.db.prisma.session.count({ where: { userId: user.headers['x-user-id'] } })).toBe(0);
  });

  it('leaves other users and ordinary operations unaffected', async () => {
    const other = newUser(server.url);
    const { viewer } = await other.data(ViewerDocument, {});
    expect(viewer.userId).toBe(other.headers['x-user-id']);
  });
});
