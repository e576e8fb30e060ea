import { resolveArrayConnection } from '@pothos/plugin-relay';
import { buildSystemPrompt } from '../../agents/prompt.js';
import type { ResolvedAgent } from '../../agents/registry.js';
import type { AgentSpec, ToolRef } from '../../agents/spec.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { builder } from '../builder.js';

const AgentKindEnum = builder.enumType('AgentKind', { values: { AGENT: { value: 'agent' }, EVALUATOR: { value: 'evaluator' } } as const });
const AgentAudienceEnum = builder.enumType('AgentAudience', {
  values: {
    CHAT: { value: 'chat', description: 'People chat with it; chat pickers list it.' },
    INTERNAL: { value: 'internal', description: 'remgraph runs it itself (routing, dreaming, evaluation).' },
  } as const,
});
const AgentOriginEnum = builder.enumType('AgentOrigin', {
  values: {
    REGISTERED: { value: 'registered', description: 'Registered through registerAgent (stored in the database).' },
    BUILTIN: { value: 'builtin', description: 'Shipped with remgraph in schemas/.' },
    FOLDER: { value: 'folder', description: 'Loaded from the operator’s AGENTS_DIR.' },
  } as const,
});

const AgentToolRef = builder.objectRef<ToolRef>('AgentTool').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    server: t.exposeString('server', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    requiresApproval: t.exposeBoolean('requiresApproval'),
  }),
});

const AgentDefinition = builder.interfaceRef<{ spec: AgentSpec }>('AgentDefinition').implement({
  description: 'What a YAML agent declares.',
  fields: (t) => ({
    kind: t.field({ type: AgentKindEnum, resolve: (a) => a.spec.kind }),
    audience: t.field({ type: AgentAudienceEnum, resolve: (a) => a.spec.audience }),
    description: t.string({ resolve: (a) => a.spec.description }),
    systemPrompt: t.string({
      description: 'The assembled system prompt (description, Tool Notes, Thinking Structure).',
      resolve: (a) => buildSystemPrompt(a.spec),
    }),
    tools: t.field({ type: [AgentToolRef], resolve: (a) => a.spec.tools }),
    model: t.string({ nullable: true, resolve: (a) => a.spec.model ?? null }),
    structuredOutput: t.boolean({ resolve: (a) => a.spec.structuredOutput }),
    maxIterations: t.int({ resolve: (a) => a.spec.maxIterations }),
    spec: t.field({ type: 'JSON', description: 'The normalized spec.', resolve: (a) => a.spec }),
  }),
});

const AgentRef = builder.objectRef<ResolvedAgent>('Agent').implement({
  description: 'A declarative agent: its YAML, normalized spec and assembled system prompt.',
  interfaces: [AgentDefinition],
  fields: (t) => ({
    name: t.exposeString('name'),
    version: t.exposeInt('version', { nullable: true, description: 'Registry version; null for agents shipped as files.' }),
    origin: t.field({ type: AgentOriginEnum, resolve: (a) => a.origin }),
    shared: t.boolean({ description: 'True when every user of the tenant can use it.', resolve: (a) => a.userId === null }),
    source: t.exposeString('source', { description: 'The YAML as written.' }),
    createdAt: t.field({ type: 'DateTime', nullable: true, resolve: (a) => a.createdAt }),
  }),
});

const AgentValidationRef = builder.objectRef<{ spec: AgentSpec }>('AgentValidation').implement({
  description: 'A YAML agent that passed validation (nothing was stored).',
  interfaces: [AgentDefinition],
  fields: (t) => ({ name: t.string({ resolve: (a) => a.spec.name }) }),
});

const RegisterAgentPayload = builder.objectRef<{ agent: ResolvedAgent; created: boolean }>('RegisterAgentPayload').implement({
  fields: (t) => ({
    agent: t.field({ type: AgentRef, resolve: (p) => p.agent }),
    created: t.exposeBoolean('created', { description: 'False when the content equals the latest version, which is returned.' }),
  }),
});

builder.queryFields((t) => ({
  agents: t.connection({
    type: AgentRef,
    description: 'Agents the caller can use (latest version of each name), by name.',
    args: { kind: t.arg({ type: AgentKindEnum, required: false }), audience: t.arg({ type: AgentAudienceEnum, required: false }) },
    resolve: async (_root, args, ctx) => {
      if ((args.first ?? 0) > 100) throw new ValidationError('first: must be between 0 and 100', [{ path: ['first'], message: 'must be between 0 and 100' }]);
      return resolveArrayConnection({ args }, await ctx.agents.list(ctx.viewer, args.kind, args.audience));
    },
  }),
  agent: t.field({
    type: AgentRef,
    nullable: true,
    args: { name: t.arg.string(), version: t.arg.int({ required: false }) },
    resolve: (_root, args, ctx) => ctx.agents.load(ctx.viewer, args.name, args.version),
  }),
}));

builder.mutationFields((t) => ({
  registerAgent: t.field({
    type: RegisterAgentPayload,
    description: 'Validates and stores a YAML agent as a new immutable version (owned by the caller, or shared for admins).',
    errors: { types: [ValidationError, ForbiddenError], directResult: true },
    args: { yaml: t.arg.string(), shared: t.arg.boolean({ required: false }) },
    resolve: (_root, args, ctx) => ctx.agents.register(ctx.viewer, args.yaml, { shared: args.shared ?? false }),
  }),
  validateAgent: t.field({
    type: AgentValidationRef,
    description: 'Checks a YAML agent without storing it.',
    errors: { types: [ValidationError], directResult: true },
    args: { yaml: t.arg.string() },
    resolve: (_root, args, ctx) => ({ spec: ctx.agents.validate(args.yaml) }),
  }),
  deleteAgent: t.field({
    type: 'Int',
    description: 'Deletes every version of the caller’s own agent; returns how many versions were removed.',
    errors: { types: [NotFoundError], dataField: { name: 'deletedVersions' } },
    args: { name: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.agents.remove(ctx.viewer, args.name),
  }),
}));
