import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { ResolvedAgent } from '../agents/registry.js';
import { agentContentHash, type AgentSpec, type ToolRef } from '../agents/spec.js';
import type { AgentProfile } from './routing-file.js';

/**
 * The routing file's profiles as agents the registry serves by name: the prompt file is the system
 * prompt, the profile's model, sampling and iterations are the agent's, and each tool name is a
 * local tool or the tool of the MCP server that lists it (`serverOf`). Profiles are internal:
 * routed mail reaches them, chat pickers do not list them.
 */
export async function profileAgents(profiles: AgentProfile[], serverOf: (tool: string) => string | undefined): Promise<ResolvedAgent[]> {
  return Promise.all(
    profiles.map(async (profile) => {
      const tools = profile.tools.map((name): ToolRef => {
        const server = serverOf(name);
        return { name, ...(server ? { server } : {}), requiresApproval: false };
      });
      const spec: AgentSpec = {
        name: profile.name,
        kind: 'agent',
        audience: 'internal',
        description: (await readFile(profile.systemPromptFile, 'utf8')).trim(),
        properties: {},
        required: [],
        tools,
        ...(profile.model ? { model: profile.model } : {}),
        temperature: profile.temperature,
        maxTokens: profile.maxTokens,
        maxIterations: profile.maxIterations,
        limits: {},
        structuredOutput: false,
      };
      const source = stringify({ agent: { profiles: { [profile.name]: profileSource(profile) } } });
      return { name: profile.name, version: null, origin: 'folder', spec, source, userId: null, createdAt: null, contentHash: agentContentHash(spec) };
    }),
  );
}

function profileSource(p: AgentProfile) {
  return {
    ...(p.model ? { model: p.model } : {}),
    max_tokens: p.maxTokens,
    temperature: p.temperature,
    max_iterations: p.maxIterations,
    system_prompt_file: p.systemPromptFile,
    tools: p.tools,
  };
}
