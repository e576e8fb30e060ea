import { z } from 'zod';

const text = z.string().max(100_000, 'must be at most 100000 characters');
const historyMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: text }),
  z.object({
    role: z.literal('assistant'),
    content: text.nullable(),
    toolCalls: z
      .array(
        z.object({
          id: z.string().min(1).max(200),
          name: z.string().min(1).max(64),
          arguments: text,
          extraContent: z
            .record(z.string(), z.unknown())
            .refine((extra) => JSON.stringify(extra).length <= 16_384, 'must be at most 16 KiB of JSON')
            .optional(),
        }),
      )
      .max(100)
      .optional(),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string().min(1).max(200), content: text }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().regex(/^[\w-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -'),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullish(),
    }),
  }),
]);

/** What `sendMessage` takes, checked once for every entry point (GraphQL, `/v1`, MCP, the CLI). */
export const sendInput = z.object({
  sessionId: z.string().uuid().nullish(),
  /** The user's message; none when the turn opens with `toolResults` (see tool-results.ts). */
  content: z.string().trim().max(100_000, 'must be at most 100000 characters').nullish(),
  /**
   * The caller's results for the calls of its own tools that its last turn handed back (TOOL_CALLS):
   * the turn answers them instead of a new message.
   */
  toolResults: z
    .array(z.object({ toolCallId: z.string().min(1).max(200), content: text }))
    .min(1)
    .max(100)
    .nullish(),
  agent: z.string().trim().min(1).max(64).nullish(),
  model: z.string().trim().min(1).max(200).nullish(),
  metadata: z
    .record(z.string(), z.unknown())
    .refine((m) => JSON.stringify(m).length <= 16_384, 'must be at most 16 KiB of JSON')
    .nullish(),
  ephemeral: z.boolean().nullish(),
  /** Each model call's exact request body is streamed (a `model_request` event) before the call. */
  debug: z.boolean().nullish(),
  /** Binds the turn and its session to a document (row id) and/or corpus; without them a session's binding holds. */
  document: z.string().uuid().nullish(),
  corpus: z.string().uuid().nullish(),
  /** The earlier conversation of a caller that keeps it itself (stateless clients): only for a new session. */
  history: z.array(historyMessage).max(2000).nullish(),
  overrides: z
    .object({
      temperature: z.number().min(0).max(2).nullish(),
      topP: z.number().min(0).max(1).nullish(),
      maxTokens: z.number().int().min(1).max(1_000_000).nullish(),
      stop: z.array(z.string().min(1).max(200)).max(4).nullish(),
      seed: z.number().int().nullish(),
      responseFormat: responseFormat.nullish(),
      systemPromptSuffix: z.string().trim().max(4000, 'must be at most 4000 characters').nullish(),
      tools: z.array(z.string().trim().min(1).max(64)).max(100).nullish(),
      /** Functions the caller runs itself, offered beside the agent's tools (see TurnOverrides.clientTools). */
      clientTools: z
        .array(
          z.object({
            name: z.string().regex(/^[\w-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -'),
            description: z.string().max(4000).nullish(),
            parameters: z.record(z.string(), z.unknown()),
          }),
        )
        .max(100)
        .nullish(),
    })
    .nullish(),
});

export type SendMessageInput = z.input<typeof sendInput>;

/** The input once checked. */
export type SendInput = z.output<typeof sendInput>;
export type ResponseFormatInput = z.output<typeof responseFormat>;
