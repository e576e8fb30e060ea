import { Client, fetchExchange } from '@urql/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { newUser } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ViewerDocument } from '../generated/graphql.js';

const FRIEND = 'https://app.example.com';
const ATTACKER = 'https://evil.example.net';
const CREATE = 'mutation { createSession(input: {name: "planted"}) { __typename } }';

let server: TestServer;
let origin: string;

beforeAll(async () => {
  server = await startTestServer({ CORS_ORIGINS: FRIEND });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server?.stop();
});

const planted = () => server.db.prisma.session.count({ where: { name: 'planted' } });

async function post(body: BodyInit, headers: Record<string, string>) {
  const res = await fetch(server.url, { method: 'POST', body, headers });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { errors?: { message: string; extensions?: { code?: string } }[]; data?: unknown },
  };
}

/** Opens a graphql-ws socket the way a browser would from `from`; resolves with the HTTP status of a refused upgrade, or 101. */
function openSocket(from: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(server.url.replace(/^http/, 'ws'), 'graphql-transport-ws', from ? { origin: from } : {});
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.once('error', (error) => reject(error));
  });
}

describe('CORS', () => {
  it('gives another site no CORS headers, so a browser neither sends its JSON request nor shows it the answer', async () => {
    const preflight = await fetch(server.url, {
      method: 'OPTIONS',
      headers: { origin: ATTACKER, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-user-id' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('allows the sites in CORS_ORIGINS, with credentials', async () => {
    const preflight = await fetch(server.url, {
      method: 'OPTIONS',
      headers: { origin: FRIEND, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe(FRIEND);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    const res = await post(JSON.stringify({ query: '{ viewer { userId } }' }), { origin: FRIEND, 'content-type': 'application/json', 'x-user-id': 'friend' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ viewer: { userId: 'friend' } });
    expect(res.headers.get('access-control-allow-origin')).toBe(FRIEND);
  });

  it('refuses a request from another site outright (403 FORBIDDEN), whatever its content type', async () => {
    const res = await post(JSON.stringify({ query: CREATE }), { origin: ATTACKER, 'content-type': 'application/json' });
    expect(res.status).toBe(403);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await planted()).toBe(0);
  });

  it('serves the server’s own pages (same origin) as before', async () => {
    const res = await post(JSON.stringify({ query: '{ viewer { userId } }' }), { origin, 'content-type': 'application/json', 'x-user-id': 'me' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ viewer: { userId: 'me' } });
  });
});

describe('CSRF', () => {
  // A form on any site posts these without a preflight; older browsers send no Origin at all.
  it.each([
    ['a form post', 'application/x-www-form-urlencoded', new URLSearchParams({ query: CREATE }).toString()],
    ['a text/plain post', 'text/plain', JSON.stringify({ query: CREATE })],
  ])('refuses %s without the CSRF header, storing nothing', async (_name, type, body) => {
    const res = await post(body, { 'content-type': type });
    expect(res.status).toBe(403);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(res.body.errors?.[0]?.message).toContain('x-graphql-yoga-csrf');
    expect(await planted()).toBe(0);
  });

  it('refuses a multipart post without the header and runs it with the header', async () => {
    const form = () => {
      const data = new FormData();
      data.set('operations', JSON.stringify({ query: '{ viewer { userId } }' }));
      data.set('map', '{}');
      return data;
    };
    const refused = await fetch(server.url, { method: 'POST', body: form() });
    expect(refused.status).toBe(403);
    const accepted = await fetch(server.url, { method: 'POST', body: form(), headers: { 'x-graphql-yoga-csrf': '1', 'x-user-id': 'uploader' } });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ data: { viewer: { userId: 'uploader' } } });
  });

  it('runs a query sent over GET without the header: urql with its defaults (GET within the URL limit)', async () => {
    const urql = new Client({ url: server.url, exchanges: [fetchExchange], fetchOptions: { headers: { 'x-user-id': 'reader' } } });
    const result = await urql.query(ViewerDocument, {}).toPromise();
    expect(result.error).toBeUndefined();
    expect(result.data?.viewer.userId).toBe('reader');
    expect(result.operation.context.preferGetMethod).toBe('within-url-limit');
  });

  it('refuses a mutation or a subscription over GET without the header, storing nothing', async () => {
    const get = (query: string, accept = 'application/graphql-response+json') =>
      fetch(`${server.url}?${new URLSearchParams({ query })}`, { headers: { accept, 'x-user-id': 'planter' } });
    for (const res of [await get(CREATE), await get('subscription { approvalsChanged { __typename } }', 'text/event-stream')]) {
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('x-graphql-yoga-csrf');
    }
    expect(await planted()).toBe(0);
  });

  it('leaves JSON requests of programs and other users unaffected', async () => {
    const alice = newUser(server.url);
    const { viewer } = await alice.data(ViewerDocument, {});
    expect(viewer.userId).toBe(alice.headers['x-user-id']);
  });
});

describe('the OpenAI-compatible and MCP endpoints', () => {
  const completion = JSON.stringify({ model: 'general', messages: [{ role: 'user', content: 'planted' }] });
  const routes = () =>
    [
      ['/v1/chat/completions', completion],
      ['/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })],
    ] as const;

  it('refuse another site’s Origin and bodies a form could send, storing nothing', async () => {
    for (const [path, body] of routes()) {
      const url = new URL(path, server.url);
      const foreign = await fetch(url, {
        method: 'POST',
        body,
        headers: { origin: ATTACKER, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      });
      expect(foreign.status, path).toBe(403);
      const plain = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' } });
      expect(plain.status, path).toBe(403);
      expect(JSON.stringify(await plain.json()), path).toContain('FORBIDDEN');
    }
    expect(await server.db.prisma.message.count({ where: { content: 'planted' } })).toBe(0);
  });
});

describe('websockets', () => {
  it('refuses an upgrade from another site with 403 and accepts the same origin, the allow-list and programs', async () => {
    expect(await openSocket(ATTACKER)).toBe(403);
    expect(await openSocket(origin)).toBe(101);
    expect(await openSocket(FRIEND)).toBe(101);
    expect(await openSocket(undefined)).toBe(101);
  });
});
