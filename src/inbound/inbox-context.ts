import { userContext, type AgentContext } from '../auth/agent-context.js';

/**
 * Who works inbound email: the shared inbox of its tenant (user NULL), with an admin's rights so
 * that its sessions, turns and approvals are the tenant's shared rows, which its admins decide.
 */
export function inboxContext(tenantId: string): AgentContext {
  return { ...userContext(tenantId, null), isAdmin: true };
}
