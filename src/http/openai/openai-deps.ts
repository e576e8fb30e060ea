import type { AgentRegistry } from '../../agents/registry.js';
import type { AgentContext } from '../../auth/agent-context.js';
import type { Identify } from '../../auth/identify.js';
import type { Turn } from '../../db/generated/client.js';
import type { TurnEventsDeps } from '../../events/turn-events.js';
import type { Logger } from '../../logger.js';
import type { SendMessageInput } from '../../turns/send-input.js';
import type { OriginPolicy } from '../origin-policy.js';

export interface OpenAIRoutesDeps extends TurnEventsDeps {
  identify: Identify;
  origins: OriginPolicy;
  turns: CompletionTurns;
  agents: AgentRegistry;
  logger: Logger;
  maxRequestBytes: number;
}

/** What the routes need of the turn engine (its TurnService): start a turn as `sendMessage` does. */
interface CompletionTurns {
  sendMessage(
    ctx: AgentContext,
    input: SendMessageInput,
  ): Promise<{ turn: Pick<Turn, 'id' | 'sessionId' | 'rootId' | 'status' | 'lastSeq'>; session: { id: string } }>;
}
