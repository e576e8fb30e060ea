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
 * A GraphQL endpoint (in process, no socket) over the database that counts every statement, Prisma's
 * (model queries and raw SQL alike) and the direct ones: for asserting that list fields batch their reads.
 */
export function countingGraphQL(db: Pick<Database, 'prisma' | 'sql'>) {
  let queries = 0;
  const sql: Database['sql'] = {
    query: (text, params) => {
      queries += 1;
      return db.sql.query(text, params);
    },
  };
  const counting = db.prisma.$extends({
    query: {
      async $allOperations({ args, query }) {
        queries += 1;
        return query(args);
      },
    },
  }) as unknown as PrismaClient;
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const services = {
    prisma: counting,
    sql,
    rem: new RemService({ prisma: counting, sql, embedder: new HashedLexicalEmbedder() }, config.rem),
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
    queries = 0;
    const res = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...user.headers },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const body = (await res.json()) as { data: T; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return { data: body.data, queries };
  };
}
