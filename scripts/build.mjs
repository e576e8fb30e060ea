// Builds what `npm start` runs: the server (src/ → dist/server/, bundled by esbuild with its
// dependencies; see buildServer), the chat app (web/ → web/dist/, by Vite), plus the database a new
// PGlite data directory starts from (→ .pglite-template/: initdb and every committed migration).
// Each part is rebuilt only when its sources changed since its last build, so calling this on every
// start costs a few milliseconds.
//
//   node scripts/build.mjs            every part, when stale
//   node scripts/build.mjs server     one part (server | web | database); add --force to rebuild anyway
//
// Type checking is `npm run typecheck` (and `npm test`); this build only strips types.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const STAMP = '.build-stamp';

/** The parts, with the files whose change makes them stale. */
export const parts = {
  server: {
    out: join(root, 'dist'),
    inputs: () => [...walk(join(root, 'src')), join(root, 'scripts/build.mjs'), join(root, 'package.json')],
    build: buildServer,
  },
  web: {
    out: join(root, 'web/dist'),
    inputs: () => [
      ...walk(join(root, 'web/src')),
      ...['web/index.html', 'web/vite.config.ts', 'src/events/turn-status.ts', 'scripts/build.mjs', 'package-lock.json'].map((f) => join(root, f)),
    ],
    build: buildWeb,
  },
  // The PGlite database (initdb, then the committed migrations) that a new data directory starts as a
  // copy of (src/db/pglite.ts). Built after the server, which applies the migrations.
  database: {
    out: join(root, '.pglite-template'),
    inputs: () => [join(root, 'scripts/build.mjs'), join(root, 'package-lock.json'), ...walk(join(root, 'prisma/migrations'))],
    build: buildDatabaseTemplate,
  },
};

/** Builds each named part whose stamp does not match its inputs. Returns the names it built. */
export async function ensureBuilt(names = Object.keys(parts), { force = false, log = (m) => process.stderr.write(`${m}\n`) } = {}) {
  const built = [];
  for (const name of names) {
    const part = parts[name];
    const stamp = signature(part.inputs());
    if (!force && readStamp(part.out) === stamp) continue;
    const started = performance.now();
    log(`remgraph: building ${name} (${relative(root, part.out)}/)…`);
    // Build next to the target and swap it in, so a concurrent start never sees half a build.
    const tmp = `${part.out}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    try {
      await part.build(tmp);
      writeFileSync(join(tmp, STAMP), stamp);
      swapIn(tmp, part.out);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    log(`remgraph: built ${name} in ${Math.round(performance.now() - started)} ms`);
    built.push(name);
  }
  return built;
}

/**
 * Dependencies that stay in node_modules: they load WebAssembly or data files next to their own
 * modules, start worker threads from their own files, or are optional native add-ons.
 */
const EXTERNAL = [
  '@electric-sql/pglite',
  '@electric-sql/pglite-pgvector',
  '@prisma/schema-engine-wasm',
  'libpg-query',
  'pino',
  'pino-pretty',
  'tsx',
  'bufferutil',
  'utf-8-validate',
  // Loaded lazily, only when configured (so bundling them gains no start-up time), and CommonJS packages whose
  // named exports a bundled dynamic import() does not see as Node does (`const { Redis } = await import('ioredis')`).
  'ioredis',
  '@graphql-yoga/redis-event-target',
  'pg',
  '@prisma/adapter-pg',
  '@opentelemetry',
  '@modelcontextprotocol/sdk',
];

/**
 * One bundle: src/main.ts and everything it imports, node_modules included, in a few files instead
 * of over a thousand (resolving, reading and compiling each was most of a restart). What is
 * imported lazily (`await import(...)`) stays in chunks of its own, loaded when first used. Every
 * output file sits in dist/server/, two levels below the project like the sources in src/<folder>/,
 * so that paths relative to import.meta.url (schemas/, prisma/, .pglite-template/, web/dist/, the
 * PGlite worker) are the same from both.
 */
async function buildServer(outdir) {
  const require = createRequire(import.meta.url);
  const esbuild = await import(pathToFileURL(require.resolve('esbuild')).href);
  await esbuild.build({
    entryPoints: {
      main: join(root, 'src/main.ts'),
      'pglite-worker': join(root, 'src/db/pglite-worker.ts'),
      'sql-parser-worker': join(root, 'src/rem/sql-parser-worker.ts'),
    },
    outdir: join(outdir, 'server'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
    // CommonJS dependencies inside an ES module bundle call require() for Node's own modules.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    plugins: [graphqlAsModules(require)],
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

/**
 * Every import of graphql (its root and its subpaths, from any dependency) bundles its ES module
 * files: its CommonJS ones would be wrapped so that each use of an export goes through a getter,
 * which the executor pays on every field of every result (5% of a streaming turn's CPU). All of
 * them, never a mix: two copies of graphql's classes break its instanceof checks.
 */
function graphqlAsModules(require) {
  return {
    name: 'graphql-as-modules',
    setup(build) {
      build.onResolve({ filter: /^graphql(\/.*)?$/ }, ({ path, resolveDir }) => {
        const resolved = require.resolve(path, { paths: [resolveDir] });
        const module = resolved.replace(/\.js$/, '.mjs');
        return { path: existsSync(module) ? module : resolved };
      });
      // graphql's instanceOf, unless NODE_ENV is 'production', looks for a second copy of graphql
      // each time a check fails, which the executor does for several type checks on every field of
      // every event. This bundle holds exactly one copy (above), so the plain check is the same check.
      build.onLoad({ filter: /[\\/]graphql[\\/]jsutils[\\/]instanceOf\.mjs$/ }, () => ({
        contents: 'export function instanceOf(value, constructor) { return value instanceof constructor; }',
        loader: 'js',
      }));
    },
  };
}

async function buildWeb(outdir) {
  const require = createRequire(import.meta.url);
  const vite = join(dirname(require.resolve('vite/package.json')), 'bin/vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts', '--outDir', outdir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`vite build failed (exit ${result.status})`);
}

async function buildDatabaseTemplate(outdir) {
  const require = createRequire(import.meta.url);
  const { PGlite } = await import(pathToFileURL(require.resolve('@electric-sql/pglite')).href);
  const dataDir = join(outdir, 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create({ dataDir });
  await db.close();
  // The migrations, applied by the server's own `migrate` (a first start then has none left to apply).
  await ensureBuilt(['server']);
  const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  const result = spawnSync(process.execPath, [join(parts.server.out, 'server/main.js'), 'migrate'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`applying the migrations to the template failed (exit ${result.status})`);
}

function swapIn(tmp, out) {
  const old = `${out}.old-${process.pid}`;
  if (existsSync(out)) renameSync(out, old);
  try {
    renameSync(tmp, out);
  } catch (error) {
    // Another process swapped in the same build first.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  }
  rmSync(old, { recursive: true, force: true });
}

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

/** Paths, sizes and modification times of the inputs: changes when any input is added, removed or edited. */
function signature(files) {
  const hash = createHash('sha256');
  for (const file of files.sort()) {
    const stat = statSync(file, { throwIfNoEntry: false });
    hash.update(`${relative(root, file)}:${stat?.size ?? -1}:${stat?.mtimeMs ?? -1}\n`);
  }
  return hash.digest('hex');
}

function readStamp(out) {
  try {
    return readFileSync(join(out, STAMP), 'utf8');
  } catch {
    return undefined;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const names = args.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !(n in parts));
  if (unknown.length) {
    console.error(`Unknown part ${unknown.join(', ')}: use ${Object.keys(parts).join(' | ')}`);
    process.exit(2);
  }
  await ensureBuilt(names.length ? names : undefined, { force: args.includes('--force') });
}
