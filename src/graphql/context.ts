import type { AgentContext } from '../auth/agent-context.js';
import type { PrismaClient } from '../db/generated/client.js';
import type { RemPubSub } from '../events/pubsub.js';

/** What every resolver gets: who is asking, and the services of this server instance. */
export interface GraphQLContext {
  viewer: AgentContext;
  prisma: PrismaClient;
  pubsub: RemPubSub;
}
