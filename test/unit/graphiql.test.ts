import { readFile } from 'node:fs/promises';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { EXAMPLE_TABS, graphiqlOptions } from '../../src/graphql/graphiql.js';
import { schema } from '../../src/graphql/schema.js';

describe('GraphiQL', () => {
  it('opens with the README’s example operations, each valid against the schema', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    for (const { query, variables } of EXAMPLE_TABS) {
      expect(readme, 'README lists the GraphiQL tab verbatim').toContain(`\`\`\`graphql\n${query}\n\`\`\``);
      if (variables) expect(readme).toContain(`Variables: \`${JSON.stringify(variables)}\``);
      expect(validate(schema, parse(query)).map((e) => e.message)).toEqual([]);
    }
  });

  // GraphiQL sends its headers with each HTTP request but none in a websocket's connection_init;
  // SSE is a GET, which the CSRF protection refuses without the header.
  const overSSEWithCSRFHeader = { subscriptionsProtocol: 'SSE', additionalHeaders: { 'x-graphql-yoga-csrf': 'graphiql' } };

  it('prefills the local identity in header mode, and subscribes over SSE with it', () => {
    const options = graphiqlOptions(loadConfig({ DEFAULT_USER: 'me', DEFAULT_TENANT: 'home' }).auth);
    expect(options).toMatchObject(overSSEWithCSRFHeader);
    expect(JSON.parse(options.headers!)).toEqual({ 'X-User-Id': 'me', 'X-Tenant-Id': 'home' });
    expect(options.defaultTabs!.map((t) => JSON.parse(t.headers!))).toEqual(EXAMPLE_TABS.map(() => ({ 'X-User-Id': 'me', 'X-Tenant-Id': 'home' })));
  });

  it('prefills a local identity without DEFAULT_USER', () => {
    const options = graphiqlOptions(loadConfig({ DEFAULT_TENANT: 'home' }).auth);
    expect(options).toMatchObject(overSSEWithCSRFHeader);
    expect(JSON.parse(options.headers!)).toEqual({ 'X-User-Id': 'local-user', 'X-Tenant-Id': 'home' });
  });

  it('asks for a token with JWT auth', () => {
    const options = graphiqlOptions(loadConfig({ AUTH_JWT_SECRET: 's'.repeat(32) }).auth);
    expect(options).toMatchObject(overSSEWithCSRFHeader);
    expect(JSON.parse(options.headers!)).toEqual({ Authorization: 'Bearer <paste a token>' });
  });
});
