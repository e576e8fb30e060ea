/** The three kinds of REM memory row (entities, resources, moments): their tables and Prisma delegates. */
import type { Entity, Moment, Prisma, PrismaClient, Resource } from '../../db/generated/client.js';
import type { EmbeddingProvider } from '../embeddings/provider.js';
import type { TableStats } from '../table-stats.js';

export interface MemoryDeps {
  prisma: PrismaClient;
  embedder: EmbeddingProvider;
  /** Hears how many rows each write touched, to refresh planner statistics after bulk writes. */
  stats?: TableStats;
}

export type MemoryKind = 'entity' | 'resource' | 'moment';
export type MemoryTable = 'entities' | 'resources' | 'moments';
export const TABLE_OF: Record<MemoryKind, MemoryTable> = { entity: 'entities', resource: 'resources', moment: 'moments' };

/** The row type of each kind. */
export interface MemoryRowOf {
  entity: Entity;
  resource: Resource;
  moment: Moment;
}
export type MemoryRow = MemoryRowOf[MemoryKind];

export type Tx = Prisma.TransactionClient;

/** Identifies a row by its natural key (kind, owner, key) within one tenant. */
export const rowId = (kind: MemoryKind, owner: string | null, key: string) => `${kind}:${owner ?? ''}:${key}`;

export function delegate(tx: Tx | PrismaClient, kind: MemoryKind) {
  // The three delegates share the operations used here; their argument types differ only by model.
  return (kind === 'entity' ? tx.entity : kind === 'resource' ? tx.resource : tx.moment) as unknown as {
    findFirst(args: unknown): Promise<MemoryRow | null>;
    findMany(args: unknown): Promise<MemoryRow[]>;
    delete(args: unknown): Promise<MemoryRow>;
  };
}
