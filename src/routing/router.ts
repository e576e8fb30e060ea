import type { Config } from '../config/config.js';
import type { AgentContext } from '../auth/agent-context.js';
import type { Session } from '../db/generated/client.js';
import type { RoutedBy } from '../db/generated/enums.js';
import type { AgentRegistry, ResolvedAgent } from '../agents/registry.js';
import type { Logger } from '../logger.js';
import { addressIn, addressesIn, PREPROCESSORS, type MessageFields, type Preprocessed, type PreprocessorName } from './preprocessors.js';
import type { RoutingRule, RuleMatch } from './routing-file.js';

export interface RouteDecision {
  agent: string;
  routedBy: RoutedBy;
  /** The matching rule's name (routedBy RULE). */
  rule: string | null;
  /** The matching rule's model, if it names one. */
  model: string | null;
  /** What the agent reads: the content after the matching rule's preprocessor. */
  content: string;
  /** The fields the decision looked at. */
  fields: MessageFields;
  /** Fields a structured preprocessor extracted, to keep on the stored message. */
  extracted: Record<string, unknown> | null;
  /** The classifier chose a different active agent for the session: store it. */
  newActiveAgent: string | null;
}

export interface RoutingInput {
  agent?: string | null;
  content: string;
  metadata: Record<string, unknown>;
}

/** DEFAULT_AGENT, and ROUTING_CLASSIFIER_AGENT: the agent (structured output `{agent, reason}`) that picks a routing session's active agent. */
export type RouterSettings = Pick<Config['agents'], 'defaultAgent'> & Pick<Config['workflow'], 'classifierAgent'>;

export interface RouterDeps {
  agents: AgentRegistry;
  logger: Logger;
  /** Runs the classifier agent once, outside any session, and answers its structured output. */
  runClassifier(input: { agent: ResolvedAgent; ctx: AgentContext; content: string }): Promise<{ output: Record<string, unknown> | null }>;
}

/**
 * Chooses the agent for a message: the request's agent (explicit, then X-Agent-Schema), else the
 * first routing rule that matches, else (in a session with routing on) the classifier agent's
 * choice of active agent, else the session's agent, else DEFAULT_AGENT.
 */
/**
 * Whether deciding with `classify: true` may call the classifier model where `route` was decided
 * without it: in a routing session, unless an explicit agent, a header or a rule chose.
 */
export function consultsClassifier(route: RouteDecision, session: Session | null): boolean {
  return session?.routing === true && route.routedBy !== 'EXPLICIT' && route.routedBy !== 'HEADER' && route.routedBy !== 'RULE';
}

export class Router {
  constructor(
    private readonly deps: RouterDeps,
    readonly rules: readonly RoutingRule[],
    private readonly settings: RouterSettings,
  ) {}

  /**
   * Decides; with `classify: false` (the dry run) the classifier is not asked and the session's
   * current active agent stands for its choice.
   */
  async decide(ctx: AgentContext, input: RoutingInput, session: Session | null, options: { classify: boolean }): Promise<RouteDecision> {
    const passthrough = PREPROCESSORS.passthrough(input.content, input.metadata);
    const plain = (agent: string, routedBy: RoutedBy): RouteDecision => ({
      agent,
      routedBy,
      rule: null,
      model: null,
      content: input.content,
      fields: passthrough.fields,
      extracted: null,
      newActiveAgent: null,
    });
    if (input.agent) return plain(input.agent, 'EXPLICIT');
    if (ctx.agentSchemaUri) return plain(ctx.agentSchemaUri, 'HEADER');

    const matched = this.match(input.content, input.metadata);
    if (matched) {
      const { rule, pre } = matched;
      const extracted =
        rule.preprocessor === 'passthrough'
          ? null
          : { sender: pre.fields.sender, subject: pre.fields.subject, headers: pre.fields.headers, forwarded_from: pre.fields.forwardedFrom, ...pre.extracted };
      const agent = rule.profile ?? session?.activeAgent ?? session?.agent ?? this.settings.defaultAgent;
      return { agent, routedBy: 'RULE', rule: rule.name, model: rule.model, content: pre.content, fields: pre.fields, extracted, newActiveAgent: null };
    }

    if (session?.routing) {
      const current = session.activeAgent ?? session.agent;
      const chosen = options.classify ? await this.classify(ctx, current, input.content) : current;
      if (chosen) return { ...plain(chosen, 'CLASSIFIER'), newActiveAgent: chosen !== session.activeAgent ? chosen : null };
    }
    const sessionAgent = session?.activeAgent ?? session?.agent;
    return sessionAgent ? plain(sessionAgent, 'SESSION') : plain(this.settings.defaultAgent, 'DEFAULT');
  }

  /** The first rule whose conditions hold for the message as its preprocessor sees it (inbound email is routed by this alone). */
  match(content: string, metadata: Record<string, unknown>): { rule: RoutingRule; pre: Preprocessed } | null {
    const seen = new Map<PreprocessorName, Preprocessed>();
    for (const rule of this.rules) {
      let pre = seen.get(rule.preprocessor);
      if (!pre) seen.set(rule.preprocessor, (pre = PREPROCESSORS[rule.preprocessor](content, metadata)));
      if (matches(rule.match, pre.fields)) return { rule, pre };
    }
    return null;
  }

  /**
   * Asks the classifier which registered agent should handle the session now; null when it fails
   * or names an agent that does not exist (the session then keeps what it had).
   */
  private async classify(ctx: AgentContext, current: string | null, content: string): Promise<string | null> {
    try {
      const classifier = await this.deps.agents.load(ctx, this.settings.classifierAgent);
      const candidates = (await this.deps.agents.list(ctx, 'agent')).filter((a) => !a.spec.structuredOutput && a.name !== classifier.name);
      const prompt = [
        `Current agent: ${current ?? '(none yet)'}`,
        'Agents:',
        ...candidates.map((a) => `- ${a.name}: ${a.spec.description.split('\n')[0]}`),
        '',
        'Message:',
        content,
      ].join('\n');
      const { output } = await this.deps.runClassifier({ agent: classifier, ctx, content: prompt });
      const chosen = String(output?.agent ?? '');
      if (candidates.some((a) => a.name === chosen)) return chosen;
      this.deps.logger.warn({ chosen }, 'the routing classifier chose an agent that does not exist; keeping the current one');
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'the routing classifier failed; keeping the current agent');
    }
    return current;
  }
}

function matches(m: RuleMatch, f: MessageFields): boolean {
  if (m.senderEmail && f.sender !== m.senderEmail) return false;
  if (m.senderDomain && f.sender?.split('@')[1] !== m.senderDomain) return false;
  if (m.subjectContains && !f.subject?.toLowerCase().includes(m.subjectContains)) return false;
  for (const [header, pattern] of Object.entries(m.headerMatch ?? {})) {
    const value = f.headers[header];
    if (value === undefined || !pattern.test(value)) return false;
  }
  if (m.forwardedFrom && !forwardedBy(m.forwardedFrom, f)) return false;
  return true;
}

/** The seed's signals: X-Forwarded-From, Reply-To, the address in the body, or the sender itself. */
function forwardedBy(address: string, f: MessageFields): boolean {
  return (
    f.forwardedFrom === address ||
    addressIn(f.headers['x-forwarded-from']) === address ||
    addressIn(f.headers['reply-to']) === address ||
    f.sender === address ||
    addressesIn(f.body).includes(address)
  );
}
