import cluster from 'node:cluster';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { openDatabase, type Database } from './db/database.js';
import { isAppError, PayloadTooLargeError } from './errors.js';
import { createOriginPolicy } from './http/origin-policy.js';
import { listenEarly } from './http/startup-gate.js';
import type { WorkerReady } from './cluster/primary.js';
import { createLogger, type Logger } from './logger.js';
import { installProcessGuards } from './process-guards.js';

const USAGE = `remgraph <command>

  serve [--workers N]      start the server (default); --workers N runs N server processes on one
                           port (overrides WORKERS; more than one needs DATABASE_URL and REDIS_URL)
  migrate                  apply pending database migrations and exit
  migrate:create <name>    write a migration for changes in prisma/schema.prisma (offline)
  schema:print [file]      print the GraphQL schema (SDL), or write it to a file
  docs:config [file]       print the configuration reference (docs/configuration.md), or write it
  reembed <tenant>         compute the configured embedding model's vectors for every row of a
                           tenant that lacks one, in batches, printing progress (after a model change)
  ingest_file <path> --user <id> [--tenant <id>] [--key <key>] [--tags a,b]
                           ingest a text, Markdown, HTML or PDF file as the user's chunked resources
                           (as the ingestFile mutation does)

  import <file.jsonl|dir> [--user <id>] [--tenant <id>] [--from-line N] [--skip-invalid]
                           bulk-load entities, resources and moments, one JSON item a line (the
                           ingest mutation's shape; a directory: each *.jsonl in name order) as the
                           user's rows (shared ones without --user), with a progress bar; a failure
                           prints the line to resume from (as the importFile mutation does)

  chat | query | agents | sessions | approvals | replay | documents | corpus | intake
  | datasets | regress
                           clients of a running server (see docs/protocols.md, or
                           remgraph <command> --help)
`;

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  // Before loading the clients' modules, which a server does not need.
  if (command === 'serve') return serve(rest);
  const client = await import('./cli/commands.js');
  if (client.isClientCommand(command)) return client.runClientCommand(command, rest);
  switch (command) {
    case 'migrate': {
      const config = loadConfig();
      const db = await openDatabase(config.database);
      try {
        const { applyMigrations } = await import('./db/migrations.js');
        const applied = await applyMigrations(db);
        console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.');
      } finally {
        await db.close();
      }
      return 0;
    }
    case 'migrate:create': {
      if (!rest[0]) {
        console.error('migrate:create needs a name, e.g. `npm run migrate:create -- add-tags`');
        return 2;
      }
      const { createMigration } = await import('./db/migrations.js');
      const { path, sql } = await createMigration(rest.join(' '));
      console.log(`Wrote ${path}/migration.sql\n\n${sql}`);
      return 0;
    }
    case 'schema:print': {
      const { printSchemaSdl } = await import('./graphql/print-schema.js');
      const sdl = printSchemaSdl();
      if (rest[0]) await writeFile(rest[0], sdl);
      else process.stdout.write(sdl);
      return 0;
    }
    case 'docs:config': {
      const { configReference } = await import('./config/reference.js');
      const page = configReference();
      if (rest[0]) await writeFile(rest[0], page);
      else process.stdout.write(page);
      return 0;
    }
    case 'reembed': {
      if (!rest[0]) {
        console.error('reembed needs a tenant id, e.g. `remgraph reembed default`');
        return 2;
      }
      return reembedTenant(rest[0]);
    }
    case 'ingest_file':
      return ingestFileCommand(rest);
    case 'import':
      return importCommand(rest);
    case 'help':
    case '--help':
      console.log(USAGE);
      return 0;
    default:
      console.error(`Unknown command "${command}".\n\n${USAGE}`);
      return 2;
  }
}

/**
 * Opens the database for a one-off command. A running server may own it (an embedded database has
 * one owner): the refusal then says what does the command's work while the server runs.
 */
async function openForCommand(config: Config, alternative?: string): Promise<Database> {
  try {
    return await openDatabase(config.database);
  } catch (error) {
    if (error instanceof DataDirInUseError) throw new DataDirInUseError(error.dataDir, error.pid, alternative);
    throw error;
  }
}

async function reembedTenant(tenantId: string): Promise<number> {
  const config = loadConfig();
  const db = await openForCommand(config, 'use the API (queueReembed)');
  try {
    const { applyMigrations } = await import('./db/migrations.js');
    await applyMigrations(db);
    const { createEmbeddingProvider } = await import('./rem/embeddings/create.js');
    const { reembed } = await import('./rem/memory/reembed.js');
    const { TableStats } = await import('./rem/table-stats.js');
    const stats = new TableStats(db.prisma, config.rem.analyzeAfterRows, (err, table) => console.error(`ANALYZE ${table} failed: ${(err as Error).message}`));
    const { userContext } = await import('./auth/agent-context.js');
    const admin = { ...userContext(tenantId, null), isAdmin: true };
    const result = await reembed({ prisma: db.prisma, embedder: createEmbeddingProvider(config.rem.embedding), stats }, admin, {
      batchSize: config.rem.reembedBatchSize,
      onProgress: (p) => console.log(`${p.table}: ${p.scanned} rows looked at, ${p.embedded} embedded`),
    });
    console.log(`Done: ${result.embedded} rows embedded with ${result.model} (${result.dimension} dimensions).`);
  } finally {
    await db.close();
  }
  return 0;
}

async function ingestFileCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { user: { type: 'string' }, tenant: { type: 'string' }, key: { type: 'string' }, tags: { type: 'string' } },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  if (positionals.length !== 1 || !values.user) {
    console.error('ingest_file needs one file and a user, e.g. `remgraph ingest_file handbook.md --user alice`');
    return 2;
  }
  const path = positionals[0]!;
  const config = loadConfig();
  const size = await stat(path).then(
    (s) => (s.isFile() ? s.size : null),
    () => null,
  );
  if (size === null) {
    console.error(`${path}: not a readable file`);
    return 1;
  }
  // Checked before reading, so an oversized file is never loaded into memory.
  if (size > config.ingest.maxBytes) throw new PayloadTooLargeError(config.ingest.maxBytes, 'File');
  const bytes = await readFile(path);
  const db = await openForCommand(config, 'use the API (ingestFile)');
  try {
    const { applyMigrations } = await import('./db/migrations.js');
    await applyMigrations(db);
    const { createEmbeddingProvider } = await import('./rem/embeddings/create.js');
    const { ingestFile } = await import('./rem/ingest/ingest-file.js');
    const { userContext } = await import('./auth/agent-context.js');
    const ctx = userContext(values.tenant ?? config.auth.defaultTenant, values.user);
    const tags = values.tags
      ?.split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const result = await ingestFile(
      { prisma: db.prisma, embedder: createEmbeddingProvider(config.rem.embedding) },
      ctx,
      { filename: basename(path), bytes, key: values.key, tags },
      config.ingest,
    );
    console.log(
      result.unchanged
        ? `${path}: unchanged (already ingested as ${result.resource.key}, ${result.chunks} chunks, sha256 ${result.contentHash})`
        : `${path}: ingested as ${result.resource.key}, ${result.chunks} chunks (sha256 ${result.contentHash})`,
    );
  } finally {
    await db.close();
  }
  return 0;
}

async function importCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { user: { type: 'string' }, tenant: { type: 'string' }, 'from-line': { type: 'string' }, 'skip-invalid': { type: 'boolean' } },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  const fromLine = Number(values['from-line'] ?? 1);
  if (positionals.length !== 1 || !Number.isInteger(fromLine) || fromLine < 1) {
    console.error('import needs one file or directory (and --from-line a line number), e.g. `remgraph import memory.jsonl --user alice`');
    return 2;
  }
  const config = loadConfig();
  const { fileSource } = await import('./rem/import/jsonl.js');
  const source = await fileSource(positionals[0]!);
  const db = await openForCommand(config, 'use the API (importFile)');
  const { progressBar } = await import('./cli/progress-bar.js');
  const bar = progressBar(process.stdout, 'rows');
  let resumeAt = fromLine;
  try {
    const { applyMigrations } = await import('./db/migrations.js');
    await applyMigrations(db);
    const { createEmbeddingProvider } = await import('./rem/embeddings/create.js');
    const { importMemory } = await import('./rem/import/import-memory.js');
    const { TableStats } = await import('./rem/table-stats.js');
    const { userContext } = await import('./auth/agent-context.js');
    const stats = new TableStats(db.prisma, config.rem.analyzeAfterRows, (err, table) => console.error(`ANALYZE ${table} failed: ${(err as Error).message}`));
    // The operator owns the database: rows without --user are the tenant's shared rows.
    const ctx = { ...userContext(values.tenant ?? config.auth.defaultTenant, values.user ?? null), isAdmin: true };
    const started = performance.now();
    const result = await importMemory(
      { prisma: db.prisma, sql: db.sql, backend: db.backend, embedder: createEmbeddingProvider(config.rem.embedding), stats },
      ctx,
      source,
      config.rem.import,
      {
        fromLine,
        skipInvalid: values['skip-invalid'],
        onSkipped: (error) => console.error(`${error.message} (skipped)`),
        onProgress: (p) => {
          resumeAt = p.nextLine;
          bar.update({ done: p.nextLine - fromLine, total: p.total - fromLine + 1, note: p.stage === 'indexing' ? 'building the vector index' : undefined });
        },
      },
    );
    bar.end();
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `Imported ${result.rows} rows (${result.entities} entities, ${result.resources} resources, ${result.moments} moments) from ${source.name} in ${seconds.toFixed(1)} s (${Math.round(result.rows / seconds)} rows/s)` +
        `${result.skipped ? `; ${result.skipped} bad lines skipped` : ''}${result.reindexed ? '; vector index rebuilt' : ''}.`,
    );
    return 0;
  } catch (error) {
    bar.end();
    console.error(isAppError(error) ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error));
    console.error(`Lines before ${resumeAt} are imported; resume with --from-line ${resumeAt}.`);
    return 1;
  } finally {
    await db.close();
  }
}

async function serve(args: string[]): Promise<number> {
  // Under load V8 lets the heap grow to about four times what is live before collecting it (most
  // of a busy server's resident memory: 500 concurrent turns peaked near 400 MB of heap for some
  // 150 MB live). A growth of 100 % (collect when the heap has doubled) bounds that. 30 % bounded
  // it more, but its full collections (9 per 1,500 turns one at a time, the floor's 2) cost 5-7 % of
  // CPU per turn on PostgreSQL and 7-13 % on PGlite (V8's flags hold for every thread's heap, the
  // database worker's too; bench/side-by-side.ts), for 20-30 MB less peak RSS at 500 turns.
  setFlagsFromString('--heap-growing-percent=100');
  // V8 allocates an allocation site's objects straight in the old generation once most of them
  // survived a young collection, and some of a turn's short-lived objects (the executor's, the
  // event hub's) get there. From then on each is freed only by a full collection, and keeps what it
  // points to alive through the young ones. Without it a turn on PostgreSQL, one at a time,
  // promoted 68 KB instead of 124 KB (the floor: 62 KB) with half the full collections, for 10 %
  // less CPU per turn (bench/side-by-side.ts; in bursts and on PGlite, the same within noise).
  setFlagsFromString('--no-allocation-site-pretenuring');
  let workers: string | undefined;
  try {
    workers = parseArgs({ args, options: { workers: { type: 'string' } } }).values.workers;
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig(workers === undefined ? process.env : { ...process.env, WORKERS: workers });
  // A worker's lines name it: several processes write to the same output.
  const logger = cluster.isWorker ? createLogger(config.log.level).child({ worker: process.pid }) : createLogger(config.log.level);
  const started = performance.now();
  if (cluster.isPrimary && config.workers.count > 1) {
    const { startPrimary } = await import('./cluster/primary.js');
    const primary = await startPrimary(config, logger, fileURLToPath(import.meta.url));
    // Stopping is handled before anyone is told the server is up: a SIGTERM sent as soon as the
    // line below is read must find its handler, not the default action (killed, no exit code).
    const stopped = untilStopped(logger, () => primary.stop());
    logger.info(
      { backend: 'postgres', workers: primary.pids(), startupMs: Math.round(performance.now() - started) },
      // The chat app's address first: it is what someone starting the server wants to open.
      `chat app: ${new URL('/', primary.url).href} · remgraph listening on ${primary.url} with ${config.workers.count} workers (GraphiQL in a browser, websockets on the same path)`,
    );
    return stopped;
  }
  // Opening the embedded database is mostly WebAssembly work: start it, then load the GraphQL
  // modules while it runs. /healthz answers meanwhile (the process is alive); the rest waits for the app.
  const opening = openDatabase(config.database, { warmUp: true });
  // Not a worker of `serve --workers N`: the connections the primary would hand it while it starts
  // are better served by the workers already up.
  const listening = cluster.isWorker ? undefined : listenEarly(config.server, createOriginPolicy(config.security.corsOrigins));
  // startApp handles a failure to open or listen; until it is loaded, keep those from counting as unhandled.
  opening.catch(() => {});
  listening?.catch(() => {});
  const { startApp } = await import('./app.js');
  const app = await startApp(config, logger, opening, undefined, listening);
  const startupMs = Math.round(performance.now() - started);
  const stopped = untilStopped(logger, () => app.stop());
  if (cluster.isWorker) {
    logger.info({ processId: app.processId, startupMs }, 'worker serving');
    process.send!({ remgraph: 'ready', url: app.url } satisfies WorkerReady);
  } else {
    logger.info(
      { backend: app.db.backend, processId: app.processId, startupMs },
      `chat app: ${new URL('/', app.url).href} · remgraph listening on ${app.url} (GraphiQL in a browser, websockets on the same path)`,
    );
  }
  return stopped;
}

/** Runs until SIGTERM or SIGINT (exit code 0) or an uncaught exception (1), then `stop()`s. */
function untilStopped(logger: Logger, stop: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: string, code = 0) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      stop().then(
        () => resolve(code),
        (error) => {
          logger.error({ err: error }, 'error during shutdown');
          resolve(code);
        },
      );
    };
    installProcessGuards(logger, (reason) => shutdown(reason, 1));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}

main(process.argv.slice(2)).then(
  // Exit explicitly: the wasm schema engine leaves a timer pending for ~10 s after migrating.
  (code) => process.exit(code),
  (error) => {
    // Settings problems are the operator's to fix: say what is wrong, without a stack trace.
    if (error instanceof ConfigError || error instanceof DataDirInUseError || isAppError(error)) console.error(error.message);
    else console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
