import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { caller, errorCode, expectNoInternals, newUser, postGraphQL, wsClient, collect } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { CreateSessionDocument, RenameSessionDocument, SessionDocument, SessionUpdatedDocument, ViewerDocument } from '../generated/graphql.js';

let server: TestServer;
const SECRET = 'test-secret-that-is-long-enough-for-hs256!!';

beforeAll(async () => {
  server = await startTestServer({ MAX_REQUEST_BYTES: '65536' });
});
afterAll(async () => {
  await server?.stop();
});

async function sessionCount(): Promise<number> {
  return server.db.prisma.session.count();
}

describe('malformed requests', () => {
  it('rejects a GraphQL syntax error with 400 and a parse error', async () => {
    const res = await postGraphQL(server.url, { query: '{ viewer { userId ' });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toMatch(/Syntax Error/);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expectNoInternals(res.body);
  });

  it('rejects unknown fields with 400 and a validation error naming the field', async () => {
    const res = await postGraphQL(server.url, { query: '{ viewer { userId passwordHash } }' });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toContain('Cannot query field "passwordHash" on type "Viewer"');
    expect(res.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('rejects variables of the wrong type', async () => {
    const res = await postGraphQL(server.url, {
      query: 'query($first: Int) { sessions(first: $first) { totalCount } }',
      variables: { first: 'ten' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toMatch(/Variable "\$first" got invalid value "ten"/);
    expectNoInternals(res.body);
  });

  it('rejects a body that is not JSON', async () => {
    const res = await postGraphQL(server.url, '{"query": ', {}, true);
    expect(res.status).toBe(400);
    expectNoInternals(res.body);
  });

  it('rejects an oversized request with 413 before parsing it', async () => {
    const before = await sessionCount();
    const res = await postGraphQL(server.url, {
      query: 'mutation($n: String!) { createSession(input: {name: $n}) { __typename } }',
      variables: { n: 'x'.repeat(100_000) },
    });
    expect(res.status).toBe(413);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await sessionCount()).toBe(before);
  });
});

describe('invalid arguments', () => {
  it('answers a malformed ID with VALIDATION_FAILED and an ID of another type with NOT_FOUND', async () => {
    const alice = newUser(server.url);
    const malformed = await alice.request(SessionDocument, { id: 'not-an-id' });
    expect(errorCode(malformed)).toBe('VALIDATION_FAILED');
    expect(malformed.body.errors?.[0]?.message).toBe('id: not a valid ID');
    const wrongType = await alice.request(SessionDocument, { id: Buffer.from('Message:1').toString('base64') });
    expect(errorCode(wrongType)).toBe('NOT_FOUND');
    expectNoInternals(malformed.body);
  });

  it('returns a typed ValidationError for a bad session name and changes nothing', async () => {
    const alice = newUser(server.url);
    const created = await alice.data(CreateSessionDocument, { input: { name: 'keep me' } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('setup failed');
    const id = created.createSession.session.id;
    const before = await sessionCount();

    const empty = await alice.data(CreateSessionDocument, { input: { name: '   ' } });
    expect(empty.createSession).toMatchObject({
      __typename: 'ValidationError',
      code: 'VALIDATION_FAILED',
      issues: [{ path: ['input', 'name'], message: 'must not be empty' }],
    });
    const long = await alice.data(RenameSessionDocument, { id, name: 'x'.repeat(201) });
    expect(long.renameSession).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED' });
    const badMeta = await alice.data(CreateSessionDocument, { input: { name: 'm', metadata: [1, 2] } });
    expect(badMeta.createSession).toMatchObject({ __typename: 'ValidationError' });

    expect(await sessionCount()).toBe(before);
    expect((await alice.data(SessionDocument, { id })).session?.name).toBe('keep me');
  });

  it('rejects a page size above the maximum instead of silently truncating', async () => {
    const alice = newUser(server.url);
    const res = await postGraphQL(server.url, { query: '{ sessions(first: 5000) { totalCount } }' }, alice.headers);
    expect(res.body.errors?.[0]?.message).toMatch(/100/);
    expectNoInternals(res.body);
  });
});

describe('JWT authentication', () => {
  let jwtServer: TestServer;
  beforeAll(async () => {
    jwtServer = await startTestServer({ AUTH_JWT_SECRET: SECRET, AUTH_JWT_ISSUER: 'remgraph-tests' });
  });
  afterAll(async () => {
    await jwtServer?.stop();
  });

  const sign = (claims: Record<string, unknown>, { secret = SECRET, exp = '5m' } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('remgraph-tests')
      .setIssuedAt()
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(secret));

  it('takes identity from a valid token and ignores identity headers', async () => {
    const token = await sign({ sub: 'user-42', tenant_id: 'acme', roles: ['admin'] });
    const user = caller(jwtServer.url, { authorization: `Bearer ${token}`, 'x-user-id': 'someone-else', 'x-tenant-id': 'evil' });
    const { viewer } = await user.data(ViewerDocument);
    expect(viewer).toMatchObject({ userId: 'user-42', tenantId: 'acme', authMode: 'JWT', isAdmin: true });
  });

  it.each([
    ['no token', () => Promise.resolve(undefined), /Missing bearer token/],
    ['a garbage token', () => Promise.resolve('abc.def.ghi'), /Invalid token/],
    ['a token signed with another secret', () => sign({ sub: 'u' }, { secret: 'x'.repeat(40) }), /Invalid token/],
    ['an expired token', () => sign({ sub: 'u' }, { exp: '-1m' }), /Token expired/],
    ['a token without subject', () => sign({}), /no subject/],
  ])('rejects %s with 401 UNAUTHENTICATED and changes nothing', async (_name, token, message) => {
    const t = await token();
    const before = await jwtServer.db.prisma.session.count();
    const res = await postGraphQL(
      jwtServer.url,
      { query: 'mutation { createSession(input: {name: "x"}) { __typename } }' },
      t ? { authorization: `Bearer ${t}` } : { 'x-user-id': 'header-user' },
    );
    expect(res.status).toBe(401);
    expect(res.body.errors?.[0]?.message).toMatch(message);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expectNoInternals(res.body);
    expect(await jwtServer.db.prisma.session.count()).toBe(before);
  });

  it('authenticates websockets with the same token in connection_init', async () => {
    const token = await sign({ sub: 'ws-user', tenant_id: 'acme' });
    const user = caller(jwtServer.url, { authorization: `Bearer ${token}` });
    const created = await user.data(CreateSessionDocument, { input: { name: 'ws' } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('setup failed');
    const id = created.createSession.session.id;

    const good = wsClient(jwtServer.url, { Authorization: `Bearer ${token}` });
    const sub = collect(good, SessionUpdatedDocument, { sessionId: id }, (items) => items.length === 1);
    for (let i = 0; i < 100 && sub.items.length === 0; i++) {
      await user.data(RenameSessionDocument, { id, name: `ws ${i}` });
      await new Promise((r) => setTimeout(r, 20));
    }
    await sub.done;
    await good.dispose();

    const bad = wsClient(jwtServer.url, { Authorization: 'Bearer nope' });
    const refused = collect(bad, SessionUpdatedDocument, { sessionId: id });
    await expect(refused.done).rejects.toMatchObject({ code: 4403 });
    await bad.dispose();
  });
});
