import { fileURLToPath } from 'node:url';

/**
 * The layer order of src/ and web/src, top to bottom: a file may import only from its own floor or a
 * floor below (type imports too). Each floor maps its folders (`name/`) and top-level files to what
 * they hold. test/unit/import-graph.test.ts checks every import against it and docs/layout.md prints
 * it (`npm run docs:layout`).
 */
export type Floor = Readonly<Record<string, string>>;

export const LAYERS: readonly Floor[] = [
  {
    'main.ts': 'CLI entry: serve, migrate, schema:print, reembed, ingest_file, import',
    'cli/': 'chat, query, agents, sessions, approvals, replay, datasets, regress: clients of a running server',
    'process-guards.ts': 'an unawaited rejection is logged, an uncaught exception shuts down in order',
  },
  { 'cluster/': '`serve --workers N`: the primary that forks, replaces and stops the workers' },
  { 'app.ts': 'startApp: listen, websockets, stop in order' },
  { 'services.ts': 'wires the services' },
  { 'graphql/': 'builder, schema, server (yoga + graphql-ws), GraphiQL, types/<domain>.ts (thin resolvers)' },
  { 'mcp/': 'server/: remgraph as an MCP server (/mcp); client/: MCP servers’ tools for agents' },
  { 'http/': 'router (routes it is given), origin policy, body limits, global ids, openai/ (/v1)' },
  {
    'inbound/': 'email intake: webhook forms, MIME, the profiles’ and pipeline’s jobs, drafts, replies over SMTP, email events',
    'dreaming/': 'dream jobs: moments and entities distilled from sessions',
    'evals/': 'datasets and experiments (each example an ephemeral eval turn, or a replay of a real turn)',
  },
  { 'turns/': 'the turn API the outside calls: TurnService (send, regenerate, replay, compare, extract), approvals, maintenance' },
  { 'engine/': 'the runtime: supervisor, agent loop (pure, behind ports), turn store, lease, resume, recovery, quota, history' },
  { 'routing/': 'routing.yaml rules, preprocessors, the classifier (given as a port)' },
  { 'tools/': 'tool registry and built-in tools (search, action, register_metadata, ask_agent, save_memory)' },
  { 'documents/': 'documents (files’ resources), corpora, notes, summaries, annotations, scoped search' },
  { 'sessions/': 'sessions and messages (p8’s session store), the user profile key' },
  {
    'rem/': 'REM query dialect (lexer, parser, service, SQL guard), memory/ (inputs, upsert, vectors, ingest, reembed), embeddings/, ingest/ (files), import/',
  },
  { 'jobs/': 'the job queue and worker' },
  { 'events/': 'event vocabulary and turn statuses (defined once), hub, writer, pubsub, Redis relay, turnEvents' },
  { 'agents/': 'agent definitions: YAML spec, registry, system prompt' },
  { 'llm/': 'ChatModel port, OpenAI and demo models, token counting, traced model' },
  { 'telemetry/': 'OpenTelemetry tracer' },
  { 'auth/': 'identity (JWT or headers) and scoping' },
  { 'db/': 'Prisma client, PGlite (worker thread) or PostgreSQL, migrations, direct SQL, SQLSTATE names' },
  { 'config/': 'every setting: one zod model per concern, Config inferred from them' },
  { 'validation.ts': 'parseInput: zod checks whose failures become one ValidationError', 'json-schema.ts': 'the ajv for the JSON Schema draft a schema names' },
  {
    'errors.ts': 'error codes (one table, with HTTP statuses) and the AppError classes',
    'logger.ts': 'the one logger (pino)',
    'worker-script.ts': 'how a worker thread’s entry file starts, under tsx and once built',
  },
];

/** The chat app: components over the app's state, over the transport; it may import from src/ (below all of it). */
export const WEB_LAYERS: readonly Floor[] = [
  { 'main.tsx': 'mounts the app' },
  { 'components/app.tsx': 'the app: identity, sessions, the conversation, panels' },
  { 'components/': 'one file per panel: composer, conversation, sessions, inbox, inspector, memory, replay, uploads, identity' },
  { 'follow.ts': 'follows a turn’s events into a TurnView' },
  { 'turn-view.ts': 'a turn as the app shows it, folded from its events' },
  { 'agent-info.ts': 'an agent as the app lists it', 'api.ts': 'GraphQL over HTTP and graphql-ws, the identity it speaks as' },
  { 'format.ts': 'numbers and plurals', 'markdown.ts': 'answers rendered as markdown', 'theme.ts': 'light or dark, stored' },
];

/**
 * The node a file (path relative to its tree, e.g. `engine/turn-run.ts`) belongs to: the longest
 * entry of `layers` that names it or a folder holding it; undefined when none does.
 */
export function nodeOf(layers: readonly Floor[], file: string): string | undefined {
  const names = layers.flatMap((floor) => Object.keys(floor));
  return names.filter((name) => (name.endsWith('/') ? file.startsWith(name) : file === name)).sort((a, b) => b.length - a.length)[0];
}

/** The floor of each node, 0 at the top. */
export function ranks(layers: readonly Floor[]): Map<string, number> {
  return new Map(layers.flatMap((floor, rank) => Object.keys(floor).map((name) => [name, rank] as const)));
}

/** The layer list as docs/layout.md shows it: one line per node, its floor's number on the first of the floor. */
function printLayers(root: string, layers: readonly Floor[]): string {
  const width = Math.max(...layers.flatMap((floor) => Object.keys(floor).map((name) => root.length + name.length))) + 2;
  return layers
    .flatMap((floor, rank) =>
      Object.entries(floor).map(([name, about], i) => `${i === 0 ? String(rank + 1).padStart(2) : '  '} ${(root + name).padEnd(width)}${about}`),
    )
    .join('\n');
}

export const LAYOUT_DOC = fileURLToPath(new URL('../../docs/layout.md', import.meta.url));
const BLOCK = /(<!-- layers: start[^\n]*-->\n)[\s\S]*?(<!-- layers: end -->)/;

/** docs/layout.md's text with its layers block printed afresh from LAYERS and WEB_LAYERS. */
export function withLayersBlock(doc: string): string {
  if (!BLOCK.test(doc)) throw new Error(`${LAYOUT_DOC} has no <!-- layers: start --> … <!-- layers: end --> block`);
  // Blank lines around the fence, as prettier keeps markdown.
  const block = ['', '```text', printLayers('src/', LAYERS), '', printLayers('web/src/', WEB_LAYERS), '```', '', ''].join('\n');
  return doc.replace(BLOCK, (_all, start: string, end: string) => `${start}${block}${end}`);
}
