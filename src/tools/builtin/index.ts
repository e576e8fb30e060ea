import type { ToolDefinition } from '../tool.js';
import { actionTool } from './action.js';
import { askAgentTool } from './ask-agent.js';
import { registerMetadataTool } from './register-metadata.js';

/** Tools every server instance offers (agents still see only the ones they declare). */
export const builtinTools: ToolDefinition<any>[] = [actionTool, registerMetadataTool, askAgentTool];
