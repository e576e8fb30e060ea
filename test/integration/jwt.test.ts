import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, collect, postGraphQL, wsClient } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { CreateSessionDocument, SessionUpdatedDocument, ViewerDocument } from '../generated/graphql.js';

const SECRET = 'jwt-suite-secret-that-is-long-enough-for-hs256';
const CREATE = { query: 'mutation { createSession(input: {name: "jwt-planted"}) { __typename } }' };

interface Claims {
  [claim: string]: unknown;
}

function hs256(claims: Claims, { exp = '5m' as string | number | null } = {}) {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (exp !== null) jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(SECRET));
}

async function expectRefused(server: TestServer, token: string, message: RegExp) {
  const res = await postGraphQL(server.url, CREATE, { authorization: `Bearer ${token}` });
  expect(res.status).toBe(401);
  expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  expect(res.body.errors?.[0]?.message).toMatch(message);
  expect(await server.db.prisma.session.count({ where: { name: 'jwt-planted' } })).toBe(0);
}

describe('HS256 tokens', () => {
  let server: TestServer;
  let lenient: TestServer;
  beforeAll(async () => {
    [server, lenient] = await Promise.all([
      startTestServer({ AUTH_JWT_SECRET: SECRET }),
      startTestServer({ AUTH_JWT_SECRET: SECRET, AUTH_TENANT_OPTIONAL: 'true', DEFAULT_TENANT: 'fallback' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), lenient?.stop()]);
  });

  it('refuses a token without exp: it could never be taken back', async () => {
    await expectRefused(server, await hs256({ sub: 'u', tenant_id: 't' }, { exp: null }), /no "exp" claim/);
  });

  it('refuses a token without the tenant claim instead of putting its holder in the default tenant', async () => {
    await expectRefused(server, await hs256({ sub: 'u' }), /no tenant \(tenant_id\) claim/);
  });

  it('accepts a token without the tenant claim into DEFAULT_TENANT when AUTH_TENANT_OPTIONAL=true', async () => {
    const user = caller(lenient.url, { authorization: `Bearer ${await hs256({ sub: 'u' })}` });
    expect((await user.data(ViewerDocument)).viewer).toMatchObject({ userId: 'u', tenantId: 'fallback' });
  });

  it('closes a websocket with 4403 when its token expires, and leaves other sockets open', async () => {
    const owner = caller(server.url, { authorization: `Bearer ${await hs256({ sub: 'ws-owner', tenant_id: 'acme' })}` });
    const created = await owner.data(CreateSessionDocument, { input: { name: 'watched' } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('setup failed');
    const sessionId = created.createSession.session.id;

    const shortLived = await hs256({ sub: 'ws-owner', tenant_id: 'acme' }, { exp: Math.floor(Date.now() / 1000) + 3 });
    const expiring = wsClient(server.url, { Authorization: `Bearer ${shortLived}` });
    const lasting = wsClient(server.url, { Authorization: owner.headers.authorization });
    const cut = collect(expiring, SessionUpdatedDocument, { sessionId });
    const kept = collect(lasting, SessionUpdatedDocument, { sessionId }, (items) => items.length === 1);
    await expect(cut.done).rejects.toMatchObject({ code: 4403, reason: 'Token expired' });

    // The other socket still delivers.
    for (let i = 0; i < 100 && kept.items.length === 0; i++) {
      await postGraphQL(server.url, { query: `mutation { renameSession(id: "${sessionId}", name: "r${i}") { __typename } }` }, owner.headers);
      await new Promise((r) => setTimeout(r, 20));
    }
    await kept.done;
    await Promise.all([expiring.dispose(), lasting.dispose()]);
  });
});

describe('JWKS tokens', () => {
  let jwks: Server;
  let server: TestServer;
  let privateKey: CryptoKey;
  const ISSUER = 'https://id.example.com/';
  const AUDIENCE = 'remgraph';

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const { port } = jwks.address() as AddressInfo;
    server = await startTestServer({ AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks`, AUTH_JWT_ISSUER: ISSUER, AUTH_JWT_AUDIENCE: AUDIENCE });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => jwks?.close(resolve));
  });

  const rs256 = (claims: Claims, { iss = ISSUER as string | null, aud = AUDIENCE as string | null } = {}) => {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuedAt().setExpirationTime('5m');
    if (iss) jwt.setIssuer(iss);
    if (aud) jwt.setAudience(aud);
    return jwt.sign(privateKey);
  };

  it('accepts a token with the configured issuer and audience', async () => {
    const user = caller(server.url, { authorization: `Bearer ${await rs256({ sub: 'k-user', tenant_id: 'acme' })}` });
    expect((await user.data(ViewerDocument)).viewer).toMatchObject({ userId: 'k-user', tenantId: 'acme', authMode: 'JWT' });
  });

  it.each([
    ['no audience', { aud: null }, /no "aud" claim/],
    ['another service’s audience', { aud: 'billing' }, /claim "aud" is not valid/],
    ['no issuer', { iss: null }, /no "iss" claim/],
    ['another issuer', { iss: 'https://evil.example.net/' }, /claim "iss" is not valid/],
  ])('refuses a token with %s', async (_name, options, message) => {
    await expectRefused(server, await rs256({ sub: 'k-user', tenant_id: 'acme' }, options), message);
  });
});
