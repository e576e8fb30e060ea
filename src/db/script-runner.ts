import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

type Adapter = SqlDriverAdapter & { onError?: (error: unknown) => never };

/**
 * Makes migration scripts run as one multi-statement script. Both stock adapters get this wrong:
 * pglite-prisma-adapter does not await the script (a failed migration is recorded as applied) and
 * @prisma/adapter-pg splits on every ";" (breaking PL/pgSQL bodies such as our kv_store triggers).
 */
export function runScriptsWhole(
  factory: SqlMigrationAwareDriverAdapterFactory,
  exec: (script: string) => Promise<unknown>,
): SqlMigrationAwareDriverAdapterFactory {
  const patch = (adapter: Adapter): SqlDriverAdapter => {
    adapter.executeScript = async (script: string) => {
      try {
        await exec(script);
      } catch (error) {
        adapter.onError?.(error);
        throw error;
      }
    };
    return adapter;
  };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => patch((await factory.connect()) as Adapter),
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}
