/**
 * The MCP inspector recipe of docs/clients.md, run as written: the page's inspector 0.15 lines (the
 * last release for Node 20, which sends no headers) against a real server started as the page says,
 * with DEFAULT_USER. The lines are read from the page, so the two cannot drift.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EntityByKeyDocument } from '../generated/graphql.js';
import { caller } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const page = readFileSync(`${root}docs/clients.md`, 'utf8');
const section = page.slice(page.indexOf('## MCP inspector'), page.indexOf('\n## ', page.indexOf('## MCP inspector') + 1));
const lines = section.split('\n');
const start = lines.find((line) => line.endsWith(' npm start'))!;
const inspector = lines.filter((line) => line.startsWith('npx @modelcontextprotocol/inspector@0.15.0 '));

let server: TestServer;

beforeAll(async () => {
  const env = Object.fromEntries(
    start
      .replace(/ npm start$/, '')
      .split(' ')
      .map((pair) => pair.split('=') as [string, string]),
  );
  expect(env).toEqual({ DEFAULT_USER: 'alice' });
  server = await startTestServer(env);
});
afterAll(async () => {
  await server?.stop();
});

/** A line of the page, run by bash in the checkout (npx finds the installed inspector; offline, so never a download). */
async function runLine(line: string): Promise<unknown> {
  const command = line.replace('http://127.0.0.1:4000', new URL(server.url).origin);
  const { stdout } = await run('bash', ['-c', command], { cwd: root, env: { ...process.env, npm_config_offline: 'true' }, timeout: 120_000 });
  return JSON.parse(stdout);
}

describe('docs/clients.md: the MCP inspector 0.15 recipe', () => {
  it('lists the tools, and calls one as DEFAULT_USER', async () => {
    expect(inspector).toHaveLength(2);
    const [list, call] = inspector;

    const listed = (await runLine(list!)) as { tools: { name: string; annotations?: { readOnlyHint?: boolean } }[] };
    const names = listed.tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['save_memory', 'lookup', 'search', 'ask_agent']));
    expect(listed.tools.find((tool) => tool.name === 'lookup')?.annotations?.readOnlyHint).toBe(true);

    const called = (await runLine(call!)) as { isError?: boolean; content: { text: string }[] };
    expect(called.isError ?? false, JSON.stringify(called)).toBe(false);

    // Saved as alice: she reads it over GraphQL; another user does not.
    const alice = caller(server.url, { 'x-user-id': 'alice' });
    const bob = caller(server.url, { 'x-user-id': 'bob' });
    expect((await alice.data(EntityByKeyDocument, { key: 'inspector-note' })).entity?.summary).toBe('Saved from the inspector');
    expect((await bob.data(EntityByKeyDocument, { key: 'inspector-note' })).entity).toBeNull();
  });
});
