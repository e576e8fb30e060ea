import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { RegisterAgentDocument, ValidateAgentDocument } from '../generated/graphql.js';

let server: TestServer;
const LIMIT = 65_536;

beforeAll(async () => {
  server = await startTestServer({ MAX_REQUEST_BYTES: String(LIMIT), MAX_YAML_BYTES: '8192' });
});
afterAll(async () => {
  await server?.stop();
});

/** POSTs JSON with Transfer-Encoding: chunked (no Content-Length), in 8 KB chunks. */
function postChunked(payload: unknown, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const bytes = Buffer.from(JSON.stringify(payload));
  return new Promise((resolve, reject) => {
    const req = request(server.url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The server may answer and close before every chunk is written.
    req.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'EPIPE' || (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error),
    );
    for (let i = 0; i < bytes.length; i += 8192) req.write(bytes.subarray(i, i + 8192));
    req.end();
  });
}

const createSession = (name: string) => ({ query: 'mutation($n: String!) { createSession(input: {name: $n}) { __typename } }', variables: { n: name } });

describe('request size', () => {
  it('refuses a chunked body past MAX_REQUEST_BYTES with 413, storing nothing', async () => {
    const user = newUser(server.url);
    const res = await postChunked({ ...createSession('big'), padding: 'x'.repeat(LIMIT * 4) }, user.headers);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await server.db.prisma.session.count({ where: { userId: user.headers['x-user-id'] } })).toBe(0);
  });

  it('runs a chunked body within the limit', async () => {
    const user = newUser(server.url);
    const res = await postChunked(createSession('small'), user.headers);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ data: { createSession: { __typename: 'CreateSessionSuccess' } } });
    expect(await server.db.prisma.session.count({ where: { userId: user.headers['x-user-id'] } })).toBe(1);
  });
});

describe('YAML size', () => {
  const big = `name: big\ndescription: "${'x'.repeat(9000)}"\n`;

  it('refuses validateAgent and registerAgent past MAX_YAML_BYTES with a typed error, storing nothing', async () => {
    const user = newUser(server.url);
    const validated = await user.data(ValidateAgentDocument, { yaml: big });
    expect(validated.validateAgent).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(validated)).toContain('MAX_YAML_BYTES');
    const registered = await user.data(RegisterAgentDocument, { yaml: big });
    expect(registered.registerAgent).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED' });
    expect(await server.db.prisma.agent.count({ where: { name: 'big' } })).toBe(0);
  });

  it('refuses a small YAML that expands into a huge one (aliases)', async () => {
    const user = newUser(server.url);
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    const bomb = `name: bomb\ndescription: d\n${lines.join('\n')}\n`;
    const validated = await user.data(ValidateAgentDocument, { yaml: bomb });
    expect(validated.validateAgent).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(validated)).toContain('Excessive alias count');
  });
});
