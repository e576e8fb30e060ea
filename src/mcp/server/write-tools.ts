import { z } from 'zod';
import type { AgentRegistry } from '../../agents/registry.js';
import type { AgentContext } from '../../auth/agent-context.js';
import type { PrismaClient } from '../../db/generated/client.js';
import { ValidationError } from '../../errors.js';
import { encodeGlobalID, rowIdOrUuid } from '../../http/global-ids.js';
import type { Logger } from '../../logger.js';
import type { IngestFileInput, IngestFileResult } from '../../rem/ingest/ingest-file.js';
import { noteLatestAnswer } from '../../sessions/answer-notes.js';
import { defineTool } from '../../tools/define-tool.js';
import { METADATA_FIELDS, withRiskLevel } from '../../tools/builtin/note-fields.js';

interface WriteDeps {
  prisma: PrismaClient;
  agents: AgentRegistry;
  logger: Logger;
  ingestFile: (ctx: AgentContext, input: IngestFileInput) => Promise<IngestFileResult>;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A session id argument (global id or UUID) as the row id. */
export function sessionIdArg(value: string): string {
  const id = rowIdOrUuid(value, 'Session');
  if (!id) throw new ValidationError('session_id: not a session id', [{ path: ['session_id'], message: 'not a session id' }]);
  return id;
}

/**
 * The REM seed's writing tools, as the caller: notes about an answer (`register_metadata`), a file
 * into memory (`ingest_into_rem`) and an agent from YAML (`save_agent`). Each calls the domain
 * code GraphQL calls, so the rules (validation, scoping, versions) are the same.
 */
export function writeTools(deps: WriteDeps) {
  const registerMetadata = defineTool({
    name: 'register_metadata',
    description:
      'Record structured notes about the latest answer of one of your sessions (e.g. from ask_agent): confidence (0-1), sources, references, flags, risk_level, notes, extra. They are merged into that answer’s notes, as an agent’s own register_metadata does.',
    input: z.object({
      session_id: z.string().min(1).max(200).describe('Session whose latest answer the notes are about'),
      ...METADATA_FIELDS,
    }),
    output: z.object({ recorded: z.literal(true), session_id: z.string(), message_seq: z.number().int(), notes: z.record(z.string(), z.unknown()) }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async handler({ session_id, ...notes }, ctx) {
      const sessionId = sessionIdArg(session_id);
      const noted = await noteLatestAnswer(deps.prisma, ctx.agent, sessionId, withRiskLevel(notes));
      return { recorded: true as const, session_id: encodeGlobalID('Session', sessionId), message_seq: noted.seq, notes: noted.notes };
    },
  });

  const ingest = defineTool({
    name: 'ingest_into_rem',
    description:
      'Ingest a text, Markdown, HTML or PDF file into your memory as chunked, searchable resources (read it back with read_resource). Give its text as content, or its bytes as content_base64. The same key with new content replaces the chunks; with the same content nothing changes.',
    input: z.object({
      filename: z.string().min(1).max(300).describe('e.g. q3-report.md; its extension tells the format'),
      content: z.string().max(1_000_000).optional().describe('The file’s text'),
      content_base64: z.string().max(1_400_000).optional().describe('The file’s bytes, base64 (PDF)'),
      content_type: z.string().max(200).optional(),
      key: z.string().min(1).max(300).optional().describe('Resource key; defaults to the file name'),
      tags: z.array(z.string().min(1).max(100)).max(50).optional(),
    }),
    output: z.object({
      key: z.string(),
      name: z.string().nullable(),
      uri: z.string(),
      chunks: z.number().int(),
      unchanged: z.boolean(),
      content_hash: z.string(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async handler(args, ctx) {
      const result = await deps.ingestFile(ctx.agent, {
        filename: args.filename,
        contentType: args.content_type ?? null,
        bytes: fileBytes(args.content, args.content_base64),
        key: args.key ?? null,
        tags: args.tags ?? null,
      });
      const { key, name } = result.resource;
      return {
        key,
        name,
        uri: `rem://resources/${encodeURIComponent(key)}`,
        chunks: result.chunks,
        unchanged: result.unchanged,
        content_hash: result.contentHash,
      };
    },
  });

  const saveAgent = defineTool({
    name: 'save_agent',
    description:
      'Register an agent from its YAML (name, description, properties, tools…), as registerAgent does: the same content as the latest version returns it, new content is the next version. shared: true makes it the tenant’s (admins only).',
    input: z.object({ yaml: z.string().min(1).describe('The agent’s YAML document'), shared: z.boolean().default(false) }),
    output: z.object({
      name: z.string(),
      version: z.number().int().nullable(),
      created: z.boolean(),
      shared: z.boolean(),
      kind: z.string(),
      tools: z.array(z.string()),
    }),
    // A new version never replaces an earlier one.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler({ yaml, shared }, ctx) {
      const { agent, created } = await deps.agents.register(ctx.agent, yaml, { shared });
      return {
        name: agent.name,
        version: agent.version,
        created,
        shared: agent.userId === null,
        kind: agent.spec.kind,
        tools: agent.spec.tools.map((t) => t.name),
      };
    },
  });
  return [registerMetadata, ingest, saveAgent];
}

function fileBytes(content: string | undefined, base64: string | undefined): Uint8Array {
  if ((content === undefined) === (base64 === undefined)) {
    throw new ValidationError('give exactly one of content and content_base64', [
      { path: ['content'], message: 'give exactly one of content and content_base64' },
    ]);
  }
  if (content !== undefined) return new TextEncoder().encode(content);
  const compact = base64!.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 === 1) {
    throw new ValidationError('content_base64: not base64', [{ path: ['content_base64'], message: 'not base64' }]);
  }
  return new Uint8Array(Buffer.from(compact, 'base64'));
}
