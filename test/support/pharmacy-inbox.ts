import { fileURLToPath } from 'node:url';

/** The routing seed's example: its routing file, as users copy it, and its pharmacy MCP server. */
const SEED_FILE = fileURLToPath(new URL('../../examples/pharmacy/routing.yaml', import.meta.url));
const PHARMACY_SERVER = fileURLToPath(new URL('../../examples/pharmacy/pharmacy-mcp-server.ts', import.meta.url));

/**
 * A server's settings for the pharmacy inbox: the seed's routing file and MCP server, webhooks signed
 * with `secret`, the inbound jobs run in-process, and the fake OpenAI server at `modelUrl` answering
 * for every provider the seed's profiles name (its profile asks for gemini/gemini-2.5-pro).
 */
export function pharmacyInboxEnv(modelUrl: string, secret: string): Record<string, string> {
  return {
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: modelUrl,
    LLM_DEFAULT_MODEL: 'openai:fake-model',
    LLM_PROVIDERS: JSON.stringify({ gemini: { baseUrl: modelUrl, apiKey: 'test-key' } }),
    LLM_RETRY_BASE_MS: '1',
    ROUTING_FILE: SEED_FILE,
    MCP_SERVERS: JSON.stringify({ pharmacy: { command: process.execPath, args: ['--import', 'tsx', PHARMACY_SERVER] } }),
    INBOUND_EMAIL_SECRET: secret,
    JOB_KINDS: 'agent_process,classify,draft',
    JOB_POLL_MS: '50',
  };
}
