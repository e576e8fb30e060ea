import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, print, visit, type ASTNode, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfOf } from '../support/pdf.js';
import { spawnServer, type ChildEnv, type ServerProcess } from '../support/process.js';
import { readmeBlocks, type ReadmeBlock } from '../support/readme-blocks.js';
import { backend } from '../support/server.js';

// The README's walk-through, run as a newcomer would: every curl, SDK, CLI and GraphQL example of
// README.md and then of every page in docs/, in name order (their blocks are read here, so the two
// cannot drift; see test/support/readme-blocks.ts for how a block is marked as not runnable) against
// one server started as `npm start` starts it, with the default settings: no model provider (the demo
// model), no DEFAULT_USER, a fresh data directory.
//
// What is substituted, and nothing else:
// - `127.0.0.1:4000` becomes the server's port (it listens on a free one), and REMGRAPH_URL, the
//   setting the typed client example reads, names it;
// - a GraphQL id written as `"…"` (`job(id: "…")`, `datasetId: "…"`) and a `Variables:` value
//   `"paste <thing> id here"` become the id of the latest <thing> an earlier example returned: every
//   object with an `id` in a result is remembered under its field's name (`turn`, `session`, `job`,
//   `dataset`, `experiment`, ...), and an argument `id` of a field takes the id remembered under the
//   longest name the field starts with (`experimentProgress(id: "…")` → the latest `experiment`).
//   So the examples run in that order, each building on the ones before it.
// Shell blocks run with bash in a scratch directory holding the files the examples name
// (`handbook.pdf`, `memory.jsonl`) next to the checkout's `examples/`, `bin/`, `node_modules/` and `schema.graphql`, with `remgraph` on
// PATH as after `npm link`, and the server's DATA_DIR (the newcomer's `.data/`) for CLI commands.
// GraphQL blocks are sent as GraphiQL sends them, as `X-User-Id: local-user` (GraphiQL's prefill);
// subscriptions over SSE, until they complete.
// Each example must exit 0 and print something, and nothing it prints may carry GraphQL `errors`,
// an OpenAI-shaped `error` or an `…Error` result; a GraphQL result a page shows as `# → {…}`
// after an operation must match it.

const root = fileURLToPath(new URL('../../', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const blocks = pages.flatMap((page) => readmeBlocks(readFileSync(join(root, page), 'utf8'), page));
/** Commands a shell example may run; anything else must be taught here or marked as skipped on its page. */
const KNOWN_COMMANDS = /^(curl|remgraph|npx tsx|node bin\/remgraph\.js|echo [^|]+\| *remgraph)\s/;
/** What a newcomer's shell has; the rest of this process's environment (test settings, keys) stays out. */
const NEWCOMER_ENV = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TMPDIR', 'TERM'];
const EXAMPLE_TIMEOUT_MS = 240_000;

describe.skipIf(backend() === 'postgres')('the README walk-through (`npm start` means the embedded database)', () => {
  let server: ServerProcess;
  let scratch: string;
  let work: string;
  let newcomer: Record<string, string>;
  let dataDir: string;
  let startServer: () => Promise<ServerProcess>;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
    expect(start, 'the server is started here as `npm start` starts it').toBe('node bin/remgraph.js serve');
    scratch = await mkdtemp(join(tmpdir(), 'remgraph-readme-'));
    dataDir = join(scratch, 'data');
    work = join(scratch, 'work');
    const shims = join(scratch, 'path');
    await mkdir(work);
    await mkdir(shims);
    for (const entry of ['examples', 'bin', 'node_modules', 'schema.graphql']) await symlink(join(root, entry), join(work, entry));
    await symlink(join(root, 'bin/remgraph.js'), join(shims, 'remgraph'));
    await writeFile(join(work, 'package.json'), '{ "type": "module", "private": true }\n');
    await writeFile(join(work, 'handbook.pdf'), pdfOf(['Expenses over 500 euros need approval from Sarah Chen', 'Trains are booked second class']));
    // The "Bulk import" lines of docs/rem.md, as the file its examples import.
    const jsonl = /## Bulk import[\s\S]*?```json\n([\s\S]*?)```/.exec(readFileSync(join(root, 'docs/rem.md'), 'utf8'))![1]!;
    await writeFile(join(work, 'memory.jsonl'), jsonl);
    newcomer = Object.fromEntries(NEWCOMER_ENV.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));
    newcomer.PATH = `${shims}:${newcomer.PATH ?? ''}`;
    const unset: ChildEnv = Object.fromEntries(Object.keys(process.env).map((name) => [name, undefined]));
    startServer = () => spawnServer({ ...unset, ...newcomer, DATA_DIR: dataDir }, 300_000, 'compiled');
    server = await startServer();
  }, 360_000);

  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }, 60_000);

  const withPort = (text: string) => text.replaceAll('127.0.0.1:4000', new URL(server.url).host);

  async function runShell(block: ReadmeBlock) {
    const commands = block.code
      .replace(/\\\n/g, ' ')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const unknown = commands.filter((c) => !KNOWN_COMMANDS.test(c));
    expect(unknown, `${block.page} line ${block.line}: commands this suite cannot run; teach it, or mark the block <!-- example: skip (why) -->`).toEqual([]);
    const script = `set -e\n${withPort(block.code)}`;
    const env = { ...newcomer, REMGRAPH_URL: server.url, DATA_DIR: dataDir };
    return checkOutput(block, await exec('bash', ['-c', script], env));
  }

  async function runScript(block: ReadmeBlock) {
    const file = join(work, `${block.page.replace(/\W+/g, '-')}-line-${block.line}.${block.lang}`);
    await writeFile(file, withPort(block.code));
    return checkOutput(block, await exec(process.execPath, ['--import', 'tsx', file], newcomer));
  }

  async function exec(command: string, args: string[], env: Record<string, string>) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(command, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: EXAMPLE_TIMEOUT_MS });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  function checkOutput(block: ReadmeBlock, { code, stdout, stderr }: { code: number | null; stdout: string; stderr: string }) {
    const context = `${block.page} line ${block.line}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`;
    expect(code, context).toBe(0);
    expect(stdout.trim(), context).not.toBe('');
    expect(stdout, context).not.toMatch(/"errors":\s*\[\s*\{/);
    expect(jsonValues(stdout).flatMap(problems), context).toEqual([]);
  }

  async function runGraphql(block: ReadmeBlock) {
    const document = parse(block.code);
    const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    for (const operation of operations) {
      const query = print(fillIds(operation));
      const variables = block.variables ? fillVariables(JSON.parse(block.variables) as Record<string, unknown>) : undefined;
      const subscription = operation.operation === 'subscription';
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user-id': 'local-user', accept: subscription ? 'text/event-stream' : 'application/json' },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(EXAMPLE_TIMEOUT_MS),
      });
      const text = await res.text();
      const context = `${block.page} line ${block.line}, ${query}\n--- HTTP ${res.status}\n${text}`;
      expect(res.status, context).toBe(200);
      const results = subscription ? sseResults(text) : [JSON.parse(text) as unknown];
      expect(results.length, context).toBeGreaterThan(0);
      expect(results.flatMap(problems), context).toEqual([]);
      for (const result of results) remember(result);
      const shown = expectedAfter(block.code, operation);
      if (shown)
        expect(Object.values((results.at(-1) as { data: object }).data)[0], `${block.page} line ${block.line}: the result it shows`).toMatchObject(shown);
    }
  }

  /** Remembers the id of every object in a result under its field's name (the latest wins). */
  function remember(value: unknown, key?: string) {
    if (Array.isArray(value)) return value.forEach((item) => remember(item, key));
    if (!value || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    if (key && typeof record.id === 'string') ids.set(key, record.id);
    for (const [k, v] of Object.entries(record)) remember(v, k);
  }

  function idOf(name: string, where: string): string {
    const known = [...ids.keys()].filter((k) => name.startsWith(k)).sort((a, b) => b.length - a.length)[0];
    if (!known) throw new Error(`${where}: no earlier example returned a ${name} id (ids seen: ${[...ids.keys()].join(', ') || 'none'})`);
    return ids.get(known)!;
  }

  /** `field(id: "…")` and `…Id: "…"` arguments and input fields, filled with remembered ids. */
  function fillIds(operation: OperationDefinitionNode): OperationDefinitionNode {
    const filled = (node: { name: { value: string }; value: ASTNode }, ancestors: readonly (ASTNode | readonly ASTNode[])[]) => {
      if (node.value.kind !== Kind.STRING || node.value.value !== '…') return undefined;
      const name = node.name.value;
      const field = [...ancestors].reverse().find((a): a is ASTNode => !Array.isArray(a) && (a as ASTNode).kind === Kind.FIELD);
      const thing = name === 'id' && field?.kind === Kind.FIELD ? field.name.value : name.replace(/Id$/, '');
      return { ...node, value: { kind: Kind.STRING, value: idOf(thing, `"…" in ${name}`) } };
    };
    return visit(operation, {
      Argument: (node, _key, _parent, _path, ancestors) => filled(node, ancestors),
      ObjectField: (node, _key, _parent, _path, ancestors) => filled(node, ancestors),
    });
  }

  function fillVariables(variables: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(variables).map(([name, value]) => {
        const placeholder = typeof value === 'string' ? /^paste (\w+)[. ]id here$/.exec(value) : null;
        return [name, placeholder ? idOf(placeholder[1]!, `variable ${name}`) : value];
      }),
    );
  }

  for (const block of blocks) {
    const title = `${block.page} line ${block.line} (${block.lang}): ${block.code
      .split('\n')
      .find((l) => l.trim() && !l.startsWith('#'))
      ?.slice(0, 70)}`;
    if (block.skip) {
      it.skip(`${title} [skipped: ${block.skip}]`, () => {});
      continue;
    }
    const run = { shell: runShell, script: runScript, graphql: runGraphql }[block.kind];
    if (block.serverStopped) {
      // The data directory has one owner: the example runs between a stop and a start, as the page says.
      it(
        `${title} [server stopped: ${block.serverStopped}]`,
        async () => {
          expect(await server.stop()).toBe(0);
          try {
            await run(block);
          } finally {
            server = await startServer();
          }
        },
        EXAMPLE_TIMEOUT_MS + 420_000,
      );
      continue;
    }
    it(title, () => run(block), EXAMPLE_TIMEOUT_MS + 60_000);
  }
});

/** The JSON values that start lines of a program's output (after an SSE `data: `), where text may follow them on the same line. */
function jsonValues(output: string): unknown[] {
  return output.split('\n').flatMap((line) => {
    const text = line.replace(/^data: /, '');
    if (!/^[[{]/.test(text)) return [];
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) {
        try {
          return [JSON.parse(text.slice(0, i + 1)) as unknown];
        } catch {
          return []; // text in brackets, such as the demo model's "[demo model: …]"
        }
      }
    }
    return [];
  });
}

/** The result a block shows for an operation, as a `# → {…}` comment between it and the next operation. */
function expectedAfter(code: string, operation: OperationDefinitionNode): object | undefined {
  const rest = code.slice(operation.loc!.end);
  const shown = /^# → (.+)$/m.exec(rest.split(/^(query|mutation|subscription)\b/m)[0]!)?.[1];
  return shown ? (JSON.parse(shown) as object) : undefined;
}

/** The results of a GraphQL-over-SSE response, through its `complete` event. */
function sseResults(text: string): unknown[] {
  const events = text.split(/\n\n/).map((chunk) => ({
    event: /^event: (.*)$/m.exec(chunk)?.[1],
    data: /^data: (.*)$/m.exec(chunk)?.[1],
  }));
  expect(events.some((e) => e.event === 'complete')).toBe(true);
  return events.filter((e) => e.event === 'next' && e.data).map((e) => JSON.parse(e.data!) as unknown);
}

/** What went wrong in one output value: GraphQL `errors`, an OpenAI-shaped `error`, or an `…Error` result. */
function problems(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(problems);
  if (!value || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own = [
    ...(Array.isArray(record.errors) && record.errors.length ? [`errors: ${JSON.stringify(record.errors)}`] : []),
    ...(record.error && typeof record.error === 'object' ? [`error: ${JSON.stringify(record.error)}`] : []),
    ...(typeof record.__typename === 'string' && record.__typename.endsWith('Error') ? [`${record.__typename}: ${JSON.stringify(record)}`] : []),
  ];
  return [...own, ...Object.values(record).flatMap(problems)];
}
