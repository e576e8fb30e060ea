import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import pg from 'pg';
import { useDatabaseUrl } from './database-url.js';

// Runs before each test file of the postgres project: the file gets a database of its own, a copy
// of the run's migrated template (global-setup.ts drops the copies with it). Files run two at a
// time, and a test that counts rows, reads a plan or rebuilds an index must not see another's work.
const template = new URL(inject('databaseTemplateUrl'));
const name = `${template.pathname.slice(1)}_${randomUUID().slice(0, 8)}`;
const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
await admin.connect();
try {
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template.pathname.slice(1)}"`);
} finally {
  await admin.end();
}
template.pathname = `/${name}`;
useDatabaseUrl(template.toString());
