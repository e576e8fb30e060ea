import type { RemService } from '../../rem/service.js';
import type { ToolDefinition } from '../tool.js';
import { actionTool } from './action.js';
import { askAgentTool } from './ask-agent.js';
import { registerMetadataTool } from './register-metadata.js';
import { createSaveMemoryTool } from './save-memory.js';
import { createSearchTool } from './search.js';

interface BuiltinDeps {
  rem: Pick<RemService, 'query' | 'embedder' | 'tableStats'>;
}

/** Tools every server instance offers (agents still see only the ones they declare). The one list of them. */
// Each tool has its own argument type; a list of them can only erase it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function builtinTools(deps: BuiltinDeps): ToolDefinition<any>[] {
  return [actionTool, registerMetadataTool, askAgentTool, createSearchTool(deps.rem), createSaveMemoryTool(deps.rem)];
}
