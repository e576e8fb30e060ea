import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentContext } from '../auth/agent-context.js';
import { ConfigError } from '../config/config.js';
import { ownedBy, requireIdentity, visibleTo } from '../auth/scope.js';
import type { Agent, Prisma, PrismaClient } from '../db/generated/client.js';
import { isUniqueViolation } from '../db/sql-state.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { agentContentHash, defaultAudience, parseAgentYaml, type AgentAudience, type AgentKind, type AgentSpec, type ToolRef } from './spec.js';

type AgentOrigin = 'registered' | 'builtin' | 'folder';

/** An agent as the runtime uses it, wherever it came from. */
export interface ResolvedAgent {
  name: string;
  /** Registry version; null for agents shipped as files. */
  version: number | null;
  origin: AgentOrigin;
  spec: AgentSpec;
  source: string;
  /** Owner; null for shared and file agents. */
  userId: string | null;
  createdAt: Date | null;
  contentHash: string;
}

/** A registered agent changed in a tenant: every process drops its cached copies of it. */
export interface AgentChange {
  tenantId: string;
  name: string;
}

/** The channel that carries agent changes to every process (the pubsub's 'agents:changed' topic). */
interface AgentChanges {
  publish(topic: 'agents:changed', change: AgentChange): void;
  subscribe(topic: 'agents:changed'): AsyncIterable<AgentChange>;
}

export interface AgentRegistryDeps {
  prisma: PrismaClient;
  pubsub: AgentChanges;
  logger: Logger;
  /** Tells whether a tool reference can be served (a local tool, or a configured MCP server), so agents cannot declare tools the runtime lacks. */
  toolExists: (ref: ToolRef) => boolean;
  /** Largest YAML a caller may send (validate, register). */
  maxYamlBytes: number;
}

const BUILTIN_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

/**
 * Finds agents by name in priority order: registered in the database (the caller's own, then the
 * tenant's shared ones) → built-in files in schemas/ → the operator's folder. Results are cached
 * per (tenant, user, name) and dropped when any process registers or deletes that name.
 */
export class AgentRegistry {
  private readonly cache = new Map<string, ResolvedAgent>();
  /**
   * Whether any agent of a name is registered in a tenant, by (tenant, name): when none is, every
   * caller of the tenant gets the file agent, and a caller's first turn costs no query of its own
   * (a burst of new users asked the same question once each). Lookups in flight are shared.
   */
  private readonly registeredInTenant = new Map<string, Promise<boolean>>();
  /** Counts changes, so that an answer read while one happened is not kept. */
  private changes = 0;
  private files = new Map<string, ResolvedAgent>();

  private constructor(private readonly deps: AgentRegistryDeps) {}

  /** `files`: the agent files as readAgentFiles reads them (a server starts that while its database opens). */
  static async create(deps: AgentRegistryDeps, files: Promise<AgentFile[]>): Promise<AgentRegistry> {
    const registry = new AgentRegistry(deps);
    for (const file of await files) registry.files.set(file.spec.name, withServedTools(file, deps));
    void registry.followChanges();
    return registry;
  }

  /** Adds agents the server defines from configuration (the routing file's profiles); they take the place of agent files of the same name. */
  define(agents: ResolvedAgent[]): void {
    for (const agent of agents) this.files.set(agent.name, agent);
  }

  /** An agent file (or defined agent) of that name exists. */
  hasFile(name: string): boolean {
    return this.files.has(name);
  }

  private async followChanges() {
    for await (const change of this.deps.pubsub.subscribe('agents:changed')) {
      this.changes += 1;
      this.registeredInTenant.delete(`${change.tenantId}\u0000${change.name}`);
      for (const key of this.cache.keys()) {
        if (key.startsWith(`${change.tenantId}\u0000`) && key.endsWith(`\u0000${change.name}`)) this.cache.delete(key);
      }
    }
  }

  /** Parses and checks a YAML agent without storing it. */
  validate(yaml: string): AgentSpec {
    const bytes = Buffer.byteLength(yaml);
    if (bytes > this.deps.maxYamlBytes) {
      throw new ValidationError(`yaml: ${bytes} bytes; at most ${this.deps.maxYamlBytes} are accepted (MAX_YAML_BYTES)`, [
        { path: ['yaml'], message: `at most ${this.deps.maxYamlBytes} bytes` },
      ]);
    }
    const spec = parseAgentYaml(yaml);
    checkTools(spec, this.deps.toolExists);
    return spec;
  }

  async load(ctx: AgentContext, name: string, version?: number | null): Promise<ResolvedAgent> {
    if (version != null) {
      const row = await this.deps.prisma.agent.findFirst({
        where: { name, version, ...visibleTo(ctx) },
        orderBy: { userId: { sort: 'asc', nulls: 'last' } },
      });
      if (!row) throw new NotFoundError('Agent', `${name}@${version}`);
      return fromRow(row);
    }
    const key = `${ctx.tenantId}\u0000${ctx.userId ?? ''}\u0000${name}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const changes = this.changes;
    const row = (await this.registered(ctx.tenantId, name))
      ? await this.deps.prisma.agent.findFirst({
          where: { name, ...visibleTo(ctx) },
          // The caller's own agent shadows a shared one of the same name; then the newest version.
          orderBy: [{ userId: { sort: 'asc', nulls: 'last' } }, { version: 'desc' }],
        })
      : null;
    const agent = row ? fromRow(row) : this.files.get(name);
    if (!agent) throw new NotFoundError('Agent', name);
    if (changes === this.changes) this.cache.set(key, agent);
    return agent;
  }

  private registered(tenantId: string, name: string): Promise<boolean> {
    const key = `${tenantId}\u0000${name}`;
    let answer = this.registeredInTenant.get(key);
    if (!answer) {
      const changes = this.changes;
      answer = this.deps.prisma.agent.findFirst({ where: { tenantId, name }, select: { id: true } }).then((row) => row !== null);
      this.registeredInTenant.set(key, answer);
      // A failed lookup, or one a change overtook, is asked again next time.
      const forget = () => {
        if (this.registeredInTenant.get(key) === answer) this.registeredInTenant.delete(key);
      };
      answer.then(() => changes !== this.changes && forget(), forget);
    }
    return answer;
  }

  /** Latest version of every agent the caller can use, by name; `audience` keeps chat or internal ones. */
  async list(ctx: AgentContext, kind?: AgentKind | null, audience?: AgentAudience | null): Promise<ResolvedAgent[]> {
    const rows = await this.deps.prisma.agent.findMany({
      where: { ...visibleTo(ctx), ...(kind ? { kind } : {}) },
      orderBy: [{ name: 'asc' }, { userId: { sort: 'asc', nulls: 'last' } }, { version: 'desc' }],
    });
    const byName = new Map<string, ResolvedAgent>();
    for (const row of rows) if (!byName.has(row.name)) byName.set(row.name, fromRow(row));
    for (const [name, agent] of this.files) {
      if (!byName.has(name) && (!kind || agent.spec.kind === kind)) byName.set(name, agent);
    }
    return [...byName.values()].filter((a) => !audience || a.spec.audience === audience).sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Stores an immutable version: the same content as the latest version returns that version;
   * new content gets the next number. Shared agents (no owner) need the admin role.
   */
  async register(ctx: AgentContext, yaml: string, options: { shared?: boolean } = {}): Promise<{ agent: ResolvedAgent; created: boolean }> {
    const spec = this.validate(yaml);
    if (options.shared && !ctx.isAdmin) throw new ForbiddenError('Only admins can register shared agents');
    requireIdentity(ctx, 'register agents');
    const owner = options.shared ? null : ctx.userId;
    const contentHash = agentContentHash(spec);
    for (let attempt = 0; ; attempt++) {
      const latest = await this.deps.prisma.agent.findFirst({
        where: { tenantId: ctx.tenantId, userId: owner, name: spec.name },
        orderBy: { version: 'desc' },
      });
      if (latest?.contentHash === contentHash) return { agent: fromRow(latest), created: false };
      try {
        const row = await this.deps.prisma.agent.create({
          data: {
            name: spec.name,
            version: (latest?.version ?? 0) + 1,
            kind: spec.kind,
            description: spec.description,
            source: yaml,
            spec: spec as unknown as Prisma.InputJsonObject,
            contentHash,
            tenantId: ctx.tenantId,
            userId: owner,
          },
        });
        this.changed(ctx.tenantId, spec.name);
        return { agent: fromRow(row), created: true };
      } catch (error) {
        // Two registrations raced for the same version number: read again and retry.
        if (attempt < 3 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  /** Deletes every version of the caller's own agent (or a shared one, for admins). */
  async remove(ctx: AgentContext, name: string): Promise<number> {
    const { count } = await this.deps.prisma.agent.deleteMany({ where: { name, ...ownedBy(ctx) } });
    if (count === 0) throw new NotFoundError('Agent', name);
    this.changed(ctx.tenantId, name);
    return count;
  }

  private changed(tenantId: string, name: string) {
    this.deps.pubsub.publish('agents:changed', { tenantId, name });
  }
}

function fromRow(row: Agent): ResolvedAgent {
  const spec = row.spec as unknown as AgentSpec;
  return {
    name: row.name,
    version: row.version,
    origin: 'registered',
    // Versions stored before agents had an audience get the default.
    spec: spec.audience ? spec : { ...spec, audience: defaultAudience(spec.kind) },
    source: row.source,
    userId: row.userId,
    createdAt: row.createdAt,
    contentHash: row.contentHash,
  };
}

function checkTools(spec: AgentSpec, toolExists: (ref: ToolRef) => boolean) {
  const issues = spec.tools
    .map((tool, index) => ({ tool, index }))
    .filter(({ tool }) => !toolExists(tool))
    .map(({ tool, index }) =>
      tool.server
        ? { path: ['tools', index, 'server'], message: `unknown MCP server "${tool.server}" (declare it in MCP_SERVERS or mcp.yaml)` }
        : { path: ['tools', index, 'name'], message: `unknown tool "${tool.name}"` },
    );
  if (issues.length) throw new ValidationError(`${issues[0]!.path.join('.')}: ${issues[0]!.message}`, issues);
}

/** An agent file as read and checked, before the server's tools are known. */
export interface AgentFile {
  path: string;
  origin: AgentOrigin;
  source: string;
  spec: AgentSpec;
}

/**
 * Reads and checks the operator's folder of YAML agents, if any, and the built-in ones (schemas/),
 * in that order: of two agents with one name, the later (the built-in one) wins. It needs no
 * database and no tools, so a server starts it while its database opens. A file that does not
 * parse rejects with a ConfigError, which stops the start-up.
 */
export async function readAgentFiles(agentsDir: string | undefined): Promise<AgentFile[]> {
  const [folder, builtins] = await Promise.all([agentsDir ? readFolder(agentsDir, 'folder') : [], readFolder(BUILTIN_DIR, 'builtin')]);
  return [...folder, ...builtins];
}

async function readFolder(dir: string, origin: AgentOrigin): Promise<AgentFile[]> {
  const files: AgentFile[] = [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    const source = await readFile(path, 'utf8');
    try {
      files.push({ path, origin, source, spec: parseAgentYaml(source) });
    } catch (error) {
      // Said like a bad setting (a message, no stack trace): the operator's file is configuration.
      throw new ConfigError([`agent file ${path}: ${(error as Error).message}`]);
    }
  }
  return files;
}

/**
 * A file's agent as this server runs it: a tool the server lacks is dropped with a warning, so a
 * file written for a richer deployment still loads.
 */
function withServedTools({ path, origin, source, spec }: AgentFile, deps: Pick<AgentRegistryDeps, 'toolExists' | 'logger'>): ResolvedAgent {
  const missing = spec.tools.filter((tool) => !deps.toolExists(tool)).map((tool) => (tool.server ? `${tool.server}:${tool.name}` : tool.name));
  if (missing.length) {
    deps.logger.warn({ agent: spec.name, path, missing }, 'agent declares tools this server does not have; they are left out');
    spec = { ...spec, tools: spec.tools.filter((tool) => deps.toolExists(tool)) };
  }
  return { name: spec.name, version: null, origin, spec, source, userId: null, createdAt: null, contentHash: agentContentHash(spec) };
}
