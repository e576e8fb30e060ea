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
    defaultModel: t.exposeString('defaultModel', { nullable: true }),
    agentSchemaUri: t.exposeString('agentSchemaUri', { nullable: true }),
    isEval: t.exposeBoolean('isEval'),
    clientId: t.exposeString('clientId', { nullable: true }),
  }),
});

builder.queryField('viewer', (t) => t.field({ type: Viewer, resolve: (_root, _args, ctx) => ctx.viewer }));
