import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MigrationList } from '@prisma/schema-engine-wasm/schema_engine_bg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { Database } from './database.js';
import { runScriptsWhole } from './script-runner.js';

const prismaDir = fileURLToPath(new URL('../../prisma/', import.meta.url));
const migrationsDir = join(prismaDir, 'migrations');
const noFilters = { externalTables: [], externalEnums: [] };

/** Suffix of hand-written database objects that generated migrations must never drop. */
const CUSTOM_OBJECT_SUFFIX = '_custom';

function readDatamodel(): Promise<string> {
  return readFile(join(prismaDir, 'schema.prisma'), 'utf8');
}

async function migrationNames(): Promise<string[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

async function migrationList(): Promise<MigrationList> {
  const names = await migrationNames();
  const lockPath = join(migrationsDir, 'migration_lock.toml');
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: await readFile(lockPath, 'utf8').catch(() => null) },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      names.map(async (name) => ({
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: { tag: 'ok' as const, value: await readFile(join(migrationsDir, name, 'migration.sql'), 'utf8') },
        },
      })),
    ),
  };
}

/**
 * Applies the committed migrations that the database lacks, recording them in `_prisma_migrations`
 * exactly as `prisma migrate deploy` would. Returns the names it applied.
 */
export async function applyMigrations(db: Database): Promise<string[]> {
  // Starting the wasm schema engine costs about a second; an up-to-date database does not need it.
  if ((await pendingMigrations(db)).length === 0) return [];
  // Loaded only then: a server whose database is up to date never needs the engine.
  const [datamodel, migrationsList, { openSchemaEngine }] = await Promise.all([readDatamodel(), migrationList(), import('./schema-engine.js')]);
  return db.withMigrationAdapter(async (adapter) => {
    const engine = await openSchemaEngine(datamodel, adapter);
    try {
      const out = await engine.applyMigrations({ migrationsList, filters: noFilters });
      return out.appliedMigrationNames;
    } finally {
      engine.free();
    }
  });
}

/** Names of committed migrations that are not (successfully) applied to the database. */
export async function pendingMigrations(db: Database): Promise<string[]> {
  const expected = await migrationNames();
  // Straight to the driver: a restart then spends no time warming up Prisma's query compiler here.
  const rows = await db.sql
    .query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL')
    .catch(() => []);
  const applied = new Set(rows.map((r) => r.migration_name));
  return expected.filter((name) => !applied.has(name));
}

/**
 * Writes a new migration with the SQL that takes the committed migrations to the current
 * schema.prisma. Works offline: the committed migrations are replayed into a throw-away in-memory
 * PGlite and diffed from there. Statements dropping hand-written `_custom` objects are left out.
 */
export async function createMigration(name: string, now = new Date()): Promise<{ path: string; sql: string }> {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!slug) throw new Error('Give the migration a name made of letters or digits');
  const [datamodel, migrationsList, { openSchemaEngine }, { openPglite }] = await Promise.all([
    readDatamodel(),
    migrationList(),
    import('./schema-engine.js'),
    import('./pglite.js'),
  ]);
  const scratch = await openPglite('memory://');
  try {
    const adapter = runScriptsWhole(new PrismaPGlite(scratch), (script) => scratch.exec(script));
    const engine = await openSchemaEngine(datamodel, adapter);
    try {
      await engine.applyMigrations({ migrationsList, filters: noFilters });
      const files = [{ path: 'schema.prisma', content: datamodel }];
      const diff = await engine.diff({
        from: { tag: 'schemaDatasource', files, configDir: prismaDir },
        to: { tag: 'schemaDatamodel', files },
        script: true,
        exitCode: null,
        filters: noFilters,
      });
      const sql = keepCustomObjects(diff.stdout ?? '');
      const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
      const dir = join(migrationsDir, `${stamp}_${slug}`);
      await mkdir(dir, { recursive: true });
      const body =
        sql.trim() && !/^-- This is an empty migration/.test(sql.trim())
          ? sql
          : '-- No schema change: write hand-made SQL (triggers, functions, custom indexes) here.\n';
      await writeFile(join(dir, 'migration.sql'), body);
      if (!migrationsList.lockfile.content) {
        await writeFile(join(migrationsDir, 'migration_lock.toml'), 'provider = "postgresql"\n');
      }
      return { path: dir, sql: body };
    } finally {
      engine.free();
    }
  } finally {
    await scratch.close();
  }
}

function keepCustomObjects(sql: string): string {
  return sql
    .split(/\n(?=-- )/)
    .filter((block) => !new RegExp(`DROP (INDEX|TRIGGER|FUNCTION)[^;]*${CUSTOM_OBJECT_SUFFIX}"?;`).test(block))
    .join('\n');
}
