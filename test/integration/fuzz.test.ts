/**
 * Throws generated input at a real server: operations built from the schema, malformed YAML agents
 * and random REM queries. Whatever comes in, no answer is a 5xx or an unexpected error, none shows
 * internals, refused input stores nothing, another tenant's data is untouched, and the server is
 * healthy afterwards. Seeded: FUZZ_SEED=<n> repeats a run (the seed is printed on failure).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoInternals, newUser, postGraphQL, type Caller, type GraphQLResponse } from '../support/client.js';
import { randomOperation } from '../support/fuzz-operations.js';
import { seededRandom, type Random } from '../support/schema-values.js';
import { startTestServer, type TestServer } from '../support/server.js';
import type { GraphQLEnumType } from 'graphql';
import { schema } from '../../src/graphql/schema.js';
import { CreateSessionDocument, UpsertEntityDocument, ViewerDocument } from '../generated/graphql.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const OPERATIONS = Number(process.env.FUZZ_OPERATIONS ?? 160);

/** Every code a client may see: the domain's, GraphQL's request errors, the transport's. */
const KNOWN_CODES = new Set([
  ...(schema.getType('ErrorCode') as GraphQLEnumType).getValues().map((v) => v.name),
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'PAYLOAD_TOO_LARGE',
]);
/** Root fields that start work which changes the tenant's rows after the response. */
const STARTS_WORK = new Set(['sendMessage', 'decideApproval', 'cancelTurn']);
const TABLES = ['session', 'message', 'turn', 'entity', 'resource', 'moment', 'agent', 'approval'] as const;

let server: TestServer;
let fuzzer: Caller;
let bystander: Caller;
let bystanderBefore: string;

beforeAll(async () => {
  server = await startTestServer();
  fuzzer = newUser(server.url);
  bystander = newUser(server.url);
  await bystander.data(CreateSessionDocument, { input: { name: 'bystander session' } });
  await bystander.data(UpsertEntityDocument, { input: { key: 'bystander-secret', name: 'Bystander', content: 'not yours' } });
  bystanderBefore = await rowsOf(bystander);
});
afterAll(async () => {
  await server?.stop();
});

/** Row counts of a tenant, table by table. */
async function countsOf(user: Caller): Promise<Record<string, number>> {
  const where = { tenantId: user.headers['x-tenant-id'] };
  const prisma = server.db.prisma as unknown as Record<string, { count(args: object): Promise<number> }>;
  const counts = await Promise.all(TABLES.map((t) => prisma[t]!.count({ where })));
  return Object.fromEntries(TABLES.map((t, i) => [t, counts[i]!]));
}

/** Everything a tenant has, as text (for "unchanged" checks on the bystander). */
async function rowsOf(user: Caller): Promise<string> {
  const where = { tenantId: user.headers['x-tenant-id'] };
  const [sessions, entities] = await Promise.all([
    server.db.prisma.session.findMany({ where, orderBy: { id: 'asc' } }),
    server.db.prisma.entity.findMany({ where, orderBy: { id: 'asc' } }),
  ]);
  return JSON.stringify({ sessions, entities });
}

async function settled(user: Caller) {
  const where = { tenantId: user.headers['x-tenant-id'], status: 'RUNNING' as const };
  for (let i = 0; i < 200 && (await server.db.prisma.turn.count({ where })) > 0; i++) await new Promise((r) => setTimeout(r, 50));
}

function expectClean(label: string, res: GraphQLResponse<unknown>, sent = '') {
  expect(res.status, label).toBeLessThan(500);
  expectNoInternals(res.body, sent);
  for (const error of res.body.errors ?? []) {
    expect(KNOWN_CODES.has(String(error.extensions?.code)), `${label}: ${JSON.stringify(error)}`).toBe(true);
  }
}

/**
 * True when nothing the operation asked for happened: every root field is an error. (An error deeper
 * down, e.g. a bad cursor in the selection of a created session, comes after the mutation ran.)
 */
function refused(res: GraphQLResponse<unknown>, roots: number): boolean {
  const errors = (res.body.errors ?? []) as { path?: unknown[] }[];
  if (errors.some((e) => (e.path?.length ?? 0) > 1)) return false;
  const data = res.body.data as Record<string, unknown> | null | undefined;
  if (!data) return true;
  const values = Object.values(data);
  return (
    values.length === roots && values.every((v) => v === null || (typeof v === 'object' && String((v as { __typename?: string }).__typename).endsWith('Error')))
  );
}

const seeded = (offset: number): Random => seededRandom(SEED + offset);

describe(`fuzz (seed ${SEED})`, () => {
  it('answers generated operations without a 5xx, an unexpected error or internals, and stores nothing it refuses', async () => {
    const random = seeded(1);
    for (let i = 0; i < OPERATIONS; i++) {
      const kind = random.chance(0.5) ? 'query' : 'mutation';
      const op = randomOperation(schema, random, kind);
      const label = `#${i} seed ${SEED}: ${op.query} ${JSON.stringify(op.variables).slice(0, 400)}`;
      const before = kind === 'mutation' ? await countsOf(fuzzer) : undefined;
      const res = await postGraphQL<unknown>(server.url, { query: op.query, variables: op.variables }, fuzzer.headers);
      expectClean(label, res);
      if (before && refused(res, op.fields.length)) expect(await countsOf(fuzzer), `${label} changed the database`).toEqual(before);
      if (op.fields.some((f) => STARTS_WORK.has(f))) await settled(fuzzer);
    }
  });

  it('answers malformed YAML agents with a typed result, registering none of the refused ones', async () => {
    const random = seeded(2);
    const sources = await Promise.all(['general.yaml', 'sample.yaml'].map((f) => readFile(new URL(`../../schemas/${f}`, import.meta.url), 'utf8')));
    for (let i = 0; i < 60; i++) {
      const yaml = mangleYaml(random.pick(sources), random);
      const label = `YAML #${i} seed ${SEED}: ${JSON.stringify(yaml.slice(0, 300))}`;
      const before = await countsOf(fuzzer);
      for (const field of ['validateAgent', 'registerAgent']) {
        const res = await postGraphQL<Record<string, { __typename: string }>>(
          server.url,
          { query: `mutation($y: String!) { r: ${field}(yaml: $y) { __typename ... on Error { code message } } }`, variables: { y: yaml } },
          fuzzer.headers,
        );
        expectClean(label, res);
        const typename = res.body.data?.r?.__typename;
        expect(['AgentValidation', 'RegisterAgentPayload', 'ValidationError', 'ForbiddenError'], label).toContain(typename);
        if (field === 'registerAgent' && typename !== 'RegisterAgentPayload') expect(await countsOf(fuzzer), label).toEqual(before);
      }
    }
  });

  it('answers random REM queries with hits or a typed error, and they change nothing', async () => {
    const random = seeded(3);
    const before = await countsOf(fuzzer);
    for (let i = 0; i < 150; i++) {
      const query = randomRemQuery(random);
      const res = await postGraphQL(
        server.url,
        { query: 'query($q: String!) { remQuery(query: $q) { mode truncated hits { key } } }', variables: { q: query } },
        fuzzer.headers,
      );
      expectClean(`REM #${i} seed ${SEED}: ${JSON.stringify(query)}`, res, query);
    }
    expect(await countsOf(fuzzer)).toEqual(before);
  });

  it('leaves another tenant untouched and the server healthy', async () => {
    expect(await rowsOf(bystander)).toBe(bystanderBefore);
    const health = await fetch(new URL('/healthz', server.url));
    expect(health.status).toBe(200);
    const ready = await fetch(new URL('/readyz', server.url));
    expect(ready.status).toBe(200);
    const { viewer } = await bystander.data(ViewerDocument, {});
    expect(viewer.userId).toBe(bystander.headers['x-user-id']);
  });
});

const YAML_NOISE = [
  ':',
  ': :',
  '-',
  '- - -',
  '&a',
  '*a',
  '*nope',
  '\t',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  '\u0000',
  '!!binary',
  '!!python/object:os.system',
  '<<: *a',
  '%YAML 9.9',
  '---',
  '...',
  '#',
  '|',
  '>',
  '? ',
  '@',
  '`',
  '\ufeff',
  'tools: 7',
  'name: [1, 2]',
  'max_iterations: -1',
  'max_iterations: 1e309',
];

function mangleYaml(source: string, random: Random): string {
  let text = source;
  const edits = 1 + random.int(3);
  for (let i = 0; i < edits; i++) {
    const at = random.int(text.length + 1);
    switch (random.int(6)) {
      case 0:
        text = text.slice(0, at);
        break;
      case 1:
        text = `${text.slice(0, at)}${random.pick(YAML_NOISE)}${text.slice(at)}`;
        break;
      case 2: {
        const lines = text.split('\n');
        const line = random.int(lines.length);
        lines.splice(line, 0, lines[line] ?? '');
        text = lines.join('\n');
        break;
      }
      case 3:
        text = text
          .split('\n')
          .map((l) => (random.chance(0.2) ? `  ${l}` : l))
          .join('\n');
        break;
      case 4:
        text = `${text}\nextra: ${'['.repeat(random.int(2000))}${']'.repeat(random.int(2000))}\n`;
        break;
      default:
        text = `${text.slice(0, at)}${'x'.repeat(random.int(500))}${text.slice(at)}`;
    }
  }
  return text;
}

const REM_TOKENS = [
  'LOOKUP',
  'FUZZY',
  'SEARCH',
  'TRAVERSE',
  'SQL',
  'FROM',
  'TYPE',
  'DEPTH',
  'LIMIT',
  'THRESHOLD',
  'MIN_SIMILARITY',
  '"sarah-chen"',
  "'bystander-secret'",
  '"',
  "'",
  ',',
  ';',
  '0',
  '0.5',
  '-1',
  '1e308',
  '999999999',
  'entities',
  'resources',
  'moments',
  'nope',
  '"\\q"',
  '"\\n"',
  '\\',
  '(',
  ')',
  '*',
  '--',
  '/*',
  'NULL',
  '"' + 'k'.repeat(300) + '"',
];
const SQL_TAILS = [
  'SELECT key FROM entities LIMIT 5',
  'SELECT * FROM entities WHERE',
  'SELECT count(*) FROM moments',
  'DELETE FROM entities',
  'UPDATE entities SET name = 1',
  'INSERT INTO sessions DEFAULT VALUES',
  'DROP TABLE entities',
  'SET ROLE postgres',
  'SELECT * FROM sessions',
  'SELECT * FROM pg_shadow',
  "SELECT current_setting('is_superuser')",
  'SELECT key FROM entities UNION SELECT name FROM agents',
  'SELECT 1; DROP TABLE turns',
  "COPY entities TO '/tmp/x'",
  'SELECT',
  'WITH x AS (SELECT 1) SELECT * FROM x',
];

function randomRemQuery(random: Random): string {
  if (random.chance(0.25)) return `${random.pick(['SQL ', ''])}${random.pick(SQL_TAILS)}`;
  return Array.from({ length: 1 + random.int(7) }, () => random.pick(REM_TOKENS)).join(random.pick([' ', '', '  ']));
}
