import type { WebAgentsQuery } from './generated/graphql.js';

/** An agent as the app lists it (the composer's picker, the session list's labels). */
export type AgentInfo = WebAgentsQuery['agents']['edges'][number]['node'];
