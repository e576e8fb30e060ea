import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { printSchemaSdl } from '../../src/graphql/print-schema.js';
import { runCli } from '../support/process.js';
import { connectionFrom } from '../../src/cli/client.js';

describe('configuration', () => {
  it('has working defaults: port 4000, embedded database under .data, header identity', () => {
    const config = loadConfig({});
    expect(config.server.port).toBe(4000);
    expect(config.database).toMatchObject({ url: undefined, dataDir: '.data' });
    expect(config.auth.mode).toBe('headers');
  });

  it('runs every job kind by default, and none with JOB_KINDS empty (an API-only instance)', () => {
    expect(loadConfig({}).workflow.jobs.kinds).toEqual(['dream', 'experiment', 'reembed', 'import', 'agent_process', 'classify', 'draft']);
    expect(loadConfig({ JOB_KINDS: '' }).workflow.jobs.kinds).toEqual([]);
  });

  it('switches to JWT auth when a secret is configured', () => {
    const config = loadConfig({ AUTH_JWT_SECRET: 's'.repeat(32) });
    expect(config.auth).toMatchObject({ mode: 'jwt', tenantClaim: 'tenant_id' });
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL: must be a postgresql:\/\/ connection string/],
    [{ AUTH_JWT_SECRET: 'short' }, /AUTH_JWT_SECRET: must be at least 32 characters/],
    [{ AUTH_JWT_SECRET: 's'.repeat(32), AUTH_JWKS_URL: 'https://example.com/jwks' }, /set one of them/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ])('rejects bad settings %j with a message naming them', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('makes the server exit non-zero with a clear message on bad settings', async () => {
    const { exit } = runCli(['serve'], { PORT: 'not-a-port', DATA_DIR: 'memory://' });
    const { code, stderr } = await exit;
    expect(code).toBe(1);
    expect(stderr).toContain('Invalid configuration');
    expect(stderr).toContain('PORT');
    expect(stderr).not.toMatch(/\bat .*\(/);
  });

  it('makes the server exit non-zero naming an agent file that does not parse, and nothing else', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'remgraph-agents-'));
    await writeFile(join(dir, 'broken.yaml'), 'name: [unclosed\n');
    const { code, stderr } = await runCli(['serve'], { AGENTS_DIR: dir, DATA_DIR: 'memory://', PORT: '0' }).exit;
    expect(code).toBe(1);
    expect(stderr).toContain('Invalid configuration');
    expect(stderr).toContain(`agent file ${join(dir, 'broken.yaml')}: Invalid agent YAML`);
    expect(stderr).not.toMatch(/\bat .*\(/);
  });

  it('explains an unknown command', async () => {
    const { code, stderr } = await runCli(['frobnicate'], {}).exit;
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown command "frobnicate"');
  });
});

describe('bin/remgraph.js', () => {
  it('runs the same CLI as the npm scripts', async () => {
    const { execFile } = await import('node:child_process');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['bin/remgraph.js', 'frobnicate'], { cwd: new URL('../../', import.meta.url).pathname }, (_e, _out, stderr) =>
        resolve({ code: child.exitCode, stderr }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown command "frobnicate"');
  });
});

describe('schema.graphql', () => {
  it('is the schema the code builds (run `npm run schema:print` after changing types)', async () => {
    const committed = await readFile(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(printSchemaSdl()).toBe(committed);
  });
});

describe('client commands: where they send GraphQL', () => {
  it('take the server’s address or its endpoint, and default to the port npm start uses', () => {
    expect(connectionFrom({}, {}).url).toBe('http://127.0.0.1:4000/graphql');
    expect(connectionFrom({}, { PORT: '4477' }).url).toBe('http://127.0.0.1:4477/graphql');
    expect(connectionFrom({}, { REMGRAPH_URL: 'http://localhost:4477' }).url).toBe('http://localhost:4477/graphql');
    expect(connectionFrom({ url: 'https://example.test/' }, { REMGRAPH_URL: 'http://localhost:4477' }).url).toBe('https://example.test/graphql');
    expect(connectionFrom({ url: 'http://localhost:4477/api/graphql' }, {}).url).toBe('http://localhost:4477/api/graphql');
  });
});
