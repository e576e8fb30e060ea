import { USAGE_GROUPS, usageReport, type UsageGroup } from '../../turns/usage-report.js';
import { builder } from '../builder.js';

const UsageGroupByEnum = builder.enumType('UsageGroupBy', { values: USAGE_GROUPS });

const UsageGroupRef = builder.objectRef<UsageGroup>('UsageGroup').implement({
  description: 'The caller’s model calls of one agent, model or UTC day.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The agent’s name, the `provider:model`, or the UTC day (YYYY-MM-DD).' }),
    requests: t.exposeInt('requests', { description: 'Model calls.' }),
    inputTokens: t.exposeFloat('inputTokens'),
    outputTokens: t.exposeFloat('outputTokens'),
    totalTokens: t.exposeFloat('totalTokens'),
    totalLatencyMs: t.exposeFloat('totalLatencyMs'),
    avgLatencyMs: t.exposeFloat('avgLatencyMs'),
  }),
});

builder.queryField('usage', (t) =>
  t.field({
    type: [UsageGroupRef],
    description: 'Tokens, requests and latency of the caller’s model calls per agent, model or day, in [since, until); most tokens first.',
    args: {
      groupBy: t.arg({ type: UsageGroupByEnum, required: true }),
      since: t.arg({ type: 'DateTime', required: false }),
      until: t.arg({ type: 'DateTime', required: false }),
    },
    resolve: (_root, args, ctx) => usageReport(ctx.sql, ctx.viewer, { groupBy: args.groupBy, since: args.since, until: args.until }),
  }),
);
