import type { ToolDefinition } from '../tool.js';
import { actionTool } from './action.js';
import { askAgentTool } from './ask-agent.js';
import { registerMetadataTool } from './register-metadata.js';

/** Tools every server instance offers (agents still see only the ones they declare). */
// Each tool has its own argument type; a list of them can only erase it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const builtinTools: ToolDefinition<any>[] = [actionTool, registerMetadataTool, askAgentTool];
