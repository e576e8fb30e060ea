import type { ChatMessage } from '../llm/chat-model.js';
import { loadHistory } from '../memory/messages.js';
import type { EngineDeps } from './engine-deps.js';
import type { ResolvedAgent } from './registry.js';

/**
 * The session's conversation as `agent` gets it: within the history budget, and with long earlier
 * answers cut for agents that can look the full text up (they have the `search` tool).
 */
export function historyFor(deps: Pick<EngineDeps, 'prisma' | 'settings'>, sessionId: string, agent: ResolvedAgent, beforeSeq?: number): Promise<ChatMessage[]> {
  const { historyTokenBudget, historyCompressChars } = deps.settings;
  const canLookUp = agent.spec.tools.some((tool) => tool.name === 'search');
  return loadHistory(deps.prisma, sessionId, {
    budgetTokens: historyTokenBudget,
    beforeSeq,
    compressAboveChars: canLookUp && historyCompressChars > 0 ? historyCompressChars : undefined,
  });
}
