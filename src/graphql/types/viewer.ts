import type { AgentContext } from '../../auth/agent-context.js';
import { builder } from '../builder.js';

const AuthModeEnum = builder.enumType('AuthMode', {
  values: { JWT: { value: 'jwt' }, HEADERS: { value: 'headers', description: 'Identity from X-User-Id headers (development only)' } } as const,
});

const Viewer = builder.objectRef<AgentContext>('Viewer').implement({
  description: 'The caller, as the server understood the request.',
  fields: (t) => ({
    userId: t.exposeString('userId', { nullable: true }),
    tenantId: t.exposeString('tenantId'),
    authMode: t.field({ type: AuthModeEnum, resolve: (v) => v.authMode }),
    isAdmin: t.exposeBoolean('isAdmin'),
    sessionId: t.exposeString('sessionId', { nullable: true }),
    defaultModel: t.string({
      nullable: true,
      description:
        'The model turns use when none is named: X-Model-Name when sent (it also comes before an agent’s own model), else the server’s default (LLM_DEFAULT_MODEL).',
      resolve: (v, _args, ctx) => v.defaultModel ?? ctx.models.defaultModelId,
    }),
    agentSchemaUri: t.exposeString('agentSchemaUri', { nullable: true }),
    isEval: t.exposeBoolean('isEval'),
    clientId: t.exposeString('clientId', { nullable: true }),
  }),
});

builder.queryField('viewer', (t) => t.field({ type: Viewer, resolve: (_root, _args, ctx) => ctx.viewer }));
