import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';

export type SchemaEngine = bg.SchemaEngine;

let loaded: Promise<void> | undefined;

// TypeScript's ES libs declare WebAssembly only as a namespace (the JS API lives in the DOM lib).
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: {
      instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }>;
    };
  }
).WebAssembly;

/**
 * Instantiates Prisma's schema engine compiled to WebAssembly. The native engine would have to be
 * downloaded from Prisma's CDN; the wasm build ships inside the npm package and talks to the
 * database through the same driver adapter as the client.
 */
function loadWasm(): Promise<void> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
    const bytes = await readFile(join(dir, 'schema_engine_bg.wasm'));
    const { instance } = await wasmApi.instantiate(bytes, { './schema_engine_bg.js': bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
  })();
  return loaded;
}

export async function openSchemaEngine(
  datamodel: string,
  factory: SqlMigrationAwareDriverAdapterFactory,
  onLog: (message: string) => void = () => {},
): Promise<SchemaEngine> {
  await loadWasm();
  return bg.SchemaEngine.new(
    { datamodels: [['schema.prisma', datamodel]] },
    (log: unknown) => onLog(String(log)),
    bindMigrationAwareSqlAdapterFactory(factory),
  );
}
