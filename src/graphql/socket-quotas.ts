import type { Config } from '../config/config.js';
import { createGraphQLError } from 'graphql-yoga';
import type { GraphQLError } from 'graphql';
import type { AgentContext } from '../auth/agent-context.js';

/** MAX_WS_CONNECTIONS_PER_USER and MAX_SUBSCRIPTIONS_PER_CONNECTION (config/security.ts). */
type SocketQuotaSettings = Pick<Config['security']['quotas'], 'wsConnectionsPerUser' | 'subscriptionsPerConnection'>;

/** Close code of a websocket refused for holding too many (like HTTP 429). */
export const TOO_MANY_CONNECTIONS = 4429;

/** Websocket connections per user (on this instance) and operations per connection. */
export class SocketQuotas {
  private readonly open = new Map<string, number>();

  constructor(private readonly settings: SocketQuotaSettings) {}

  /** Counts a new connection of `viewer`; false (and nothing counted) when the user already holds the most allowed. */
  admit(viewer: AgentContext): boolean {
    const key = keyOf(viewer);
    const count = this.open.get(key) ?? 0;
    if (count >= this.settings.wsConnectionsPerUser) return false;
    this.open.set(key, count + 1);
    return true;
  }

  release(viewer: AgentContext): void {
    const key = keyOf(viewer);
    const count = (this.open.get(key) ?? 1) - 1;
    if (count > 0) this.open.set(key, count);
    else this.open.delete(key);
  }

  get connectionRefusal(): string {
    return `RATE_LIMITED: at most ${this.settings.wsConnectionsPerUser} websocket connections per user (MAX_WS_CONNECTIONS_PER_USER)`;
  }

  /** The error for an operation that would make `running` on its connection (itself included), if that is too many. */
  subscriptionRefusal(running: number): GraphQLError | undefined {
    if (running <= this.settings.subscriptionsPerConnection) return undefined;
    return createGraphQLError(
      `At most ${this.settings.subscriptionsPerConnection} subscriptions may run on one connection (MAX_SUBSCRIPTIONS_PER_CONNECTION): complete one first`,
      { extensions: { code: 'RATE_LIMITED' } },
    );
  }
}

function keyOf(viewer: AgentContext): string {
  return `${viewer.tenantId}\u0000${viewer.userId ?? ''}`;
}
