import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { createIdentify } from '../../src/auth/identify.js';
import { loadConfig } from '../../src/config/config.js';
import type { Database } from '../../src/db/database.js';
import type { PrismaClient } from '../../src/db/generated/client.js';
import type { AppServices } from '../../src/graphql/context.js';
import { createGraphQLServer } from '../../src/graphql/server.js';
import { createLogger } from '../../src/logger.js';
import { HashedLexicalEmbedder } from '../../src/rem/embeddings/hashed-lexical.js';
import { RemService } from '../../src/rem/service.js';
import type { Caller } from './client.js';
import { createOriginPolicy } from '../../src/http/origin-policy.js';

/**
 * The database's clients that count every statement sent through them, Prisma's (model queries and
 * raw SQL alike) and the direct ones; `reset` starts the count again.
 */
export function countingDatabase(db: Pick<Database, 'prisma' | 'sql'>) {
  let queries = 0;
  const sql: Database['sql'] = {
    query: (text, params) => {
      queries += 1;
      return db.sql.query(text, params);
    },
  };
  const prisma = db.prisma.$extends({
    query: {
      async $allOperations({ args, query }) {
        queries += 1;
        return query(args);
      },
    },
  }) as unknown as PrismaClient;
  return {
    prisma,
    sql,
    get queries() {
      return queries;
    },
    reset: () => {
      queries = 0;
    },
  };
}

/**
 * A GraphQL endpoint (in process, no socket) over the database that counts every statement (see
 * countingDatabase): for asserting that list fields batch their reads.
 */
export function countingGraphQL(db: Pick<Database, 'prisma' | 'sql'>) {
  const counting = countingDatabase(db);
  const { sql } = counting;
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const services = {
    prisma: counting.prisma,
    sql,
    rem: new RemService({ prisma: counting.prisma, sql, embedder: new HashedLexicalEmbedder() }, config.rem),
  } as unknown as AppServices;
  const yoga = createGraphQLServer({
    services,
    identify: createIdentify(config.auth),
    logger: createLogger('silent'),
    graphiql: false,
    origins: createOriginPolicy([]),
    limits: config.security.operations,
  });
  return async <T, V>(user: Caller, document: TypedDocumentNode<T, V>, variables: V): Promise<{ data: T; queries: number }> => {
    counting.reset();
    const res = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...user.headers },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const body = (await res.json()) as { data: T; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return { data: body.data, queries: counting.queries };
  };
}
