import type { MessageFields } from '../../routing/preprocessors.js';
import type { RouteDecision } from '../../routing/router.js';
import type { RoutingRule, RuleMatch } from '../../routing/routing-file.js';
import { RoutedBy } from '../../db/generated/enums.js';
import { builder } from '../builder.js';
import { SendMessageInput, sendInputOf, TurnRef } from './turns.js';

const RoutedByEnum = builder.enumType(RoutedBy, { name: 'RoutedBy', description: 'How a turn’s agent was chosen.' });

const HeaderMatchRef = builder.objectRef<[string, RegExp]>('HeaderMatch').implement({
  fields: (t) => ({
    header: t.string({ description: 'Header name, lower case.', resolve: ([name]) => name }),
    pattern: t.string({ description: 'Regular expression (case-insensitive) the header’s value must match.', resolve: ([, re]) => re.source }),
  }),
});

const RuleMatchRef = builder.objectRef<RuleMatch>('RuleMatch').implement({
  description: 'Conditions of a routing rule; all that are set must hold.',
  fields: (t) => ({
    all: t.boolean({ resolve: (m) => m.all ?? false }),
    senderEmail: t.exposeString('senderEmail', { nullable: true }),
    senderDomain: t.exposeString('senderDomain', { nullable: true }),
    subjectContains: t.exposeString('subjectContains', { nullable: true }),
    headerMatch: t.field({ type: [HeaderMatchRef], resolve: (m) => Object.entries(m.headerMatch ?? {}) }),
    forwardedFrom: t.exposeString('forwardedFrom', { nullable: true }),
  }),
});

const RoutingRuleRef = builder.objectRef<RoutingRule>('RoutingRule').implement({
  description: 'A rule of routing.yaml (ROUTING_FILE).',
  fields: (t) => ({
    name: t.exposeString('name'),
    match: t.field({ type: RuleMatchRef, resolve: (r) => r.match }),
    route: t.exposeString('route', { description: '`agent` (run `profile`) or `pipeline` (the session’s agent, or DEFAULT_AGENT).' }),
    profile: t.exposeString('profile', { nullable: true, description: 'The agent a matching message goes to.' }),
    model: t.exposeString('model', { nullable: true }),
    preprocessor: t.exposeString('preprocessor', { description: '`passthrough` or `email` (content is a raw RFC 822 message).' }),
  }),
});

const MessageFieldsRef = builder.objectRef<MessageFields>('MessageFields').implement({
  description: 'What routing conditions look at, as the deciding preprocessor read them.',
  fields: (t) => ({
    sender: t.exposeString('sender', { nullable: true }),
    subject: t.exposeString('subject', { nullable: true }),
    headers: t.field({ type: 'JSON', resolve: (f) => f.headers }),
    forwardedFrom: t.exposeString('forwardedFrom', { nullable: true }),
  }),
});

const RouteDecisionRef = builder.objectRef<RouteDecision>('RouteDecision').implement({
  fields: (t) => ({
    agent: t.exposeString('agent'),
    routedBy: t.field({ type: RoutedByEnum, resolve: (d) => d.routedBy }),
    rule: t.exposeString('rule', { nullable: true, description: 'The matching rule (routedBy RULE).' }),
    model: t.exposeString('model', { nullable: true, description: 'The matching rule’s model, if it names one.' }),
    fields: t.field({ type: MessageFieldsRef, resolve: (d) => d.fields }),
  }),
});

builder.objectFields(TurnRef, (t) => ({
  routedBy: t.field({ type: RoutedByEnum, nullable: true, description: 'How the agent was chosen; null for child turns.', resolve: (turn) => turn.routedBy }),
  routingRule: t.exposeString('routingRule', { nullable: true, description: 'The routing rule that chose the agent.' }),
}));

builder.prismaObjectFields('Session', (t) => ({
  routing: t.exposeBoolean('routing', { description: 'The routing classifier picks the active agent when no rule matches.' }),
  activeAgent: t.exposeString('activeAgent', { nullable: true, description: 'The routing classifier’s current choice.' }),
}));

builder.queryFields((t) => ({
  routingRules: t.field({
    type: [RoutingRuleRef],
    description: 'The rules of routing.yaml, in the order they are tried (the first match wins).',
    resolve: (_root, _args, ctx) => [...ctx.turns.router.rules],
  }),
  routeMessage: t.field({
    type: RouteDecisionRef,
    description:
      'Which agent sendMessage would run for this input, and why; runs and stores nothing (a routing session’s classifier is not asked: its current choice is answered).',
    args: { input: t.arg({ type: SendMessageInput }) },
    resolve: (_root, { input }, ctx) => ctx.turns.routeMessage(ctx.viewer, sendInputOf(input, ctx.viewer.sessionId)),
  }),
}));
