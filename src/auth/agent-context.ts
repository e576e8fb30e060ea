/**
 * Who is asking and how: built once per request (or websocket connection) and handed to every
 * domain call.
 */
export interface AgentContext {
  /** NULL only for shared/system work; requests always carry a user. */
  userId: string | null;
  tenantId: string;
  sessionId: string | null;
  defaultModel: string | null;
  agentSchemaUri: string | null;
  isEval: boolean;
  clientId: string | null;
  /** Extra instruction for this request only (X-Added-Instruction); never persisted. */
  addedInstruction: string | null;
  isAdmin: boolean;
  authMode: 'jwt' | 'headers';
  /** The token's `email` claim, for the model's request context (JWT mode only). */
  userEmail?: string | null;
  /** The token's `name` (else `preferred_username`) claim, for the model's request context (JWT mode only). */
  userName?: string | null;
}

/** The context of work done for a user outside any request (background jobs): never an admin. */
export function userContext(tenantId: string, userId: string | null): AgentContext {
  return {
    userId,
    tenantId,
    sessionId: null,
    defaultModel: null,
    agentSchemaUri: null,
    isEval: false,
    clientId: null,
    addedInstruction: null,
    isAdmin: false,
    authMode: 'headers',
  };
}
