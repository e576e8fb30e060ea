import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What `new Worker(script, { eval })` starts for a worker entry file. */
export interface WorkerEntry {
  script: string | URL;
  eval: boolean;
}

/**
 * The worker entry `name` beside the module at `from` (its import.meta.url). A worker runs the same
 * kind of file as its parent: .js once built (scripts/build.mjs bundles each entry beside the
 * server's chunks); .ts under tsx and vitest, where the worker first registers tsx (a worker does
 * not inherit its parent's module hooks).
 */
export function workerEntry(name: string, from: string): WorkerEntry {
  const file = new URL(`./${name}${extname(fileURLToPath(from))}`, from);
  if (!file.pathname.endsWith('.ts')) return { script: file, eval: false };
  const script = `import(${JSON.stringify(tsxEsmApi())})
       .then((tsx) => { tsx.register(); return import(${JSON.stringify(file.href)}); })`;
  return { script, eval: true };
}

/** tsx's ESM entry (vitest runs modules without import.meta.resolve; tsx's CommonJS entry cannot register ESM hooks). */
function tsxEsmApi(): string {
  return pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
}
