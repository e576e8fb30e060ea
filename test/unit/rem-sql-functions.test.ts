import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Each SQL function of REM is kept, as it stands after every migration, in src/rem/sql/<name>.sql:
// the statement of the latest migration that creates it, then the ALTER FUNCTION statements of later
// migrations. To change a function, edit its file and copy the statement into a new migration; this
// test fails until the two agree.

const root = fileURLToPath(new URL('../../', import.meta.url));
const migrationsDir = join(root, 'prisma/migrations');
const functionsDir = join(root, 'src/rem/sql');
const CREATE = /CREATE (?:OR REPLACE )?FUNCTION "(\w+)"\(/g;

const migrations = readdirSync(migrationsDir)
  .filter((name) => /^\d{14}_/.test(name))
  .sort()
  .map((name) => ({ name, sql: readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8') }));

/** The CREATE FUNCTION statement starting at `start`: through its dollar-quoted body and the `;` after it. */
function createStatement(sql: string, start: number): string {
  const open = /\bAS (\$\w*\$)/g;
  open.lastIndex = start;
  const tag = open.exec(sql);
  if (!tag) throw new Error(`no dollar-quoted body after offset ${start}`);
  const close = sql.indexOf(tag[1]!, tag.index + tag[0].length);
  const end = sql.indexOf(';', close + tag[1]!.length);
  return sql.slice(start, end + 1).replace(/^CREATE FUNCTION/, 'CREATE OR REPLACE FUNCTION');
}

/** Every function the migrations create, as it stands after the last of them. */
function currentDefinitions(): Map<string, string[]> {
  const definitions = new Map<string, string[]>();
  for (const { sql } of migrations) {
    const statements: { at: number; name: string; text: string; create: boolean }[] = [];
    for (const match of sql.matchAll(CREATE)) statements.push({ at: match.index, name: match[1]!, text: createStatement(sql, match.index), create: true });
    for (const match of sql.matchAll(/ALTER FUNCTION "(\w+)"\([^;]*;/g)) statements.push({ at: match.index, name: match[1]!, text: match[0], create: false });
    for (const { name, text, create } of statements.sort((a, b) => a.at - b.at)) {
      if (create) definitions.set(name, [text]);
      else definitions.get(name)?.push(text);
    }
  }
  return definitions;
}

/** A kept file without its leading comment lines. */
function kept(name: string): string {
  const text = readFileSync(join(functionsDir, `${name}.sql`), 'utf8');
  return text.replace(/^(--.*\n|\s*\n)*/, '').trim();
}

describe('REM SQL functions kept in src/rem/sql', () => {
  const definitions = currentDefinitions();

  it('has one file per function the migrations define, and none else', () => {
    const files = readdirSync(functionsDir)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.slice(0, -'.sql'.length));
    expect(files.sort()).toEqual([...definitions.keys()].sort());
    expect(files.length).toBeGreaterThan(0);
  });

  for (const [name, statements] of currentDefinitions())
    it(`${name}.sql is the definition of the latest migration that changes it`, () => {
      expect(kept(name), `src/rem/sql/${name}.sql differs from prisma/migrations: edit one to match the other`).toBe(statements.join('\n\n'));
    });
});
