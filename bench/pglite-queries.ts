// Cost of one Prisma query on the embedded database (PGlite in its worker thread): wall time and CPU
// per query, for the whole process and for the main thread alone (the one that serves requests).
// Three kinds: a read by key, an insert (uuid, json, null), and an interactive transaction of two
// statements. Usage: npx tsx bench/pglite-queries.ts [queries=500]
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/database.js';
import { applyMigrations } from '../src/db/migrations.js';

const queries = Number(process.argv[2] ?? 500);
const TICK_MS = 10; // /proc reports CPU time in clock ticks of 10 ms

/** CPU milliseconds used so far by the main thread (Linux), or NaN elsewhere. */
function mainThreadCpuMs(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function measure(label: string, statementsEach: number, run: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 20; i++) await run(-1 - i); // warm-up
  const wall0 = performance.now();
  const main0 = mainThreadCpuMs();
  const cpu0 = processCpuMs();
  for (let i = 0; i < queries; i++) await run(i);
  const per = (value: number) => +(value / queries / statementsEach).toFixed(3);
  console.log(
    JSON.stringify({
      kind: label,
      queries,
      msPerStatement: per(performance.now() - wall0),
      mainThreadCpuMsPerStatement: per(mainThreadCpuMs() - main0),
      processCpuMsPerStatement: per(processCpuMs() - cpu0),
    }),
  );
}

const dir = await mkdtemp(join(tmpdir(), 'remgraph-bench-'));
const db = await openDatabase({ dataDir: join(dir, 'data') });
try {
  await applyMigrations(db);
  const { prisma } = db;
  const first = await prisma.session.create({ data: { name: 'bench', tenantId: 't' } });
  await measure('findUnique', 1, () => prisma.session.findUnique({ where: { id: first.id } }));
  await measure('create', 1, (i) => prisma.session.create({ data: { name: `s${i}`, tenantId: 't', userId: null, metadata: { i, tags: ['a', 'b'] } } }));
  await measure('transaction (BEGIN, 2 statements, COMMIT)', 4, () =>
    prisma.$transaction(async (tx) => {
      const session = await tx.session.findUnique({ where: { id: first.id } });
      return tx.session.update({ where: { id: first.id }, data: { metadata: { seen: session!.name } } });
    }),
  );
} finally {
  await db.close();
  await rm(dir, { recursive: true, force: true });
}
