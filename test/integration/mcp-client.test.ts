import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chat, followTurn, registerAgent, send, shape, useAgentServer } from '../support/agents.js';
import { newUser, type Caller } from '../support/client.js';
import { DecideApprovalDocument, RegisterAgentDocument } from '../generated/graphql.js';

const WEATHER_SERVER = fileURLToPath(new URL('../support/mcp-weather-server.ts', import.meta.url));

const env = useAgentServer({
  MCP_SERVERS: JSON.stringify({
    weather: { command: process.execPath, args: ['--import', 'tsx', WEATHER_SERVER] },
    // Declared but never answering: its tools fail as tool errors, the server still starts.
    broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
  }),
  MCP_TOOL_TIMEOUT_MS: '1500',
});

const WEATHER_AGENT = `
name: weather-agent
description: You report the weather.
tools:
  - name: get_weather
    server: weather
    description: Always give the temperature in Celsius.
  - name: slow
    server: weather
  - name: refund
    server: weather
    requires_approval: true
  - name: crash
    server: weather
  - name: add_forecast_tool
    server: weather
  - name: get_forecast
    server: weather
  - name: anything
    server: broken
  - name: action
`;

async function weatherUser(): Promise<Caller> {
  const user = newUser(env.server.url);
  await registerAgent(user, WEATHER_AGENT);
  return user;
}

const toolResults = (events: Awaited<ReturnType<typeof chat>>['events']) =>
  events
    .filter((e): e is Extract<typeof e, { __typename: 'ToolResultEvent' }> => e.__typename === 'ToolResultEvent')
    .map((e) => ({ name: e.name, result: e.result, isError: e.isError }));

describe('MCP tools (a stdio server process)', () => {
  it('sends the server’s listed tools with the agent’s notes appended, and runs a call', async () => {
    const user = await weatherUser();
    env.fake.enqueue({ toolCalls: [{ id: 'w1', name: 'get_weather', arguments: { city: 'Lisbon' } }] }, { text: 'It is sunny in Lisbon.' });
    const { events, turn } = await chat(env.server.url, user, { content: 'Weather in Lisbon?', agent: 'weather-agent' });

    const specs = env.fake.chatRequests[0]!.body.tools.map((t: { function: unknown }) => t.function);
    // Tools the server does not list (get_forecast, yet) and those of a server that is down are left out.
    expect(specs.map((s: { name: string }) => s.name)).toEqual(['get_weather', 'slow', 'refund', 'crash', 'add_forecast_tool', 'action']);
    expect(specs[0]).toEqual({
      name: 'get_weather',
      description: 'Current weather for a city.\n\nAlways give the temperature in Celsius.',
      parameters: expect.objectContaining({
        type: 'object',
        properties: { city: { type: 'string', minLength: 1, description: 'City name' } },
        required: ['city'],
      }),
    });

    expect(shape(events)).toEqual(['tool_call', 'tool_result', 'content*', 'final']);
    expect(toolResults(events)).toEqual([{ name: 'get_weather', result: expect.stringMatching(/^Sunny, 21 °C in Lisbon \(pid \d+\)$/), isError: false }]);
    expect(env.fake.chatRequests[1]!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'w1',
      content: expect.stringContaining('Sunny, 21 °C in Lisbon'),
    });
    expect(turn.status).toBe('COMPLETED');
  });

  it('turns error results, bad arguments, timeouts and an unreachable server into tool errors the model sees', async () => {
    const user = await weatherUser();
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'e1', name: 'get_weather', arguments: { city: 'Atlantis' } },
          { id: 'e2', name: 'get_weather', arguments: { town: 'Porto' } },
          { id: 'e3', name: 'slow', arguments: { ms: 10_000 } },
          { id: 'e4', name: 'anything', arguments: {} },
        ],
      },
      { text: 'Nothing worked.' },
    );
    const { events, turn } = await chat(env.server.url, user, { content: 'Try everything', agent: 'weather-agent' });
    expect(toolResults(events)).toEqual([
      { name: 'get_weather', result: { error: 'No weather station in Atlantis', code: 'TOOL_FAILED' }, isError: true },
      { name: 'get_weather', result: { error: expect.stringMatching(/^Invalid arguments for get_weather: .*city/) }, isError: true },
      { name: 'slow', result: { error: 'slow (MCP server weather) did not answer within 1500 ms', code: 'TOOL_FAILED' }, isError: true },
      { name: 'anything', result: { error: 'Tool "anything" is not available from MCP server broken' }, isError: true },
    ]);
    expect(turn.status).toBe('COMPLETED');
  });

  it('waits for approval before calling a gated MCP tool, then calls it once', async () => {
    const user = await weatherUser();
    env.fake.enqueue({ toolCalls: [{ id: 'r1', name: 'refund', arguments: { order: 'order-7' } }] });
    const sent = await send(user, { content: 'Refund order 7', agent: 'weather-agent' });
    const paused = await followUntilPaused(user, sent.turn.id);
    expect(paused.at(-1)).toMatchObject({ __typename: 'ApprovalNeededEvent', name: 'refund', arguments: { order: 'order-7' } });

    env.fake.enqueue({ text: 'Refunded.' });
    const approvalId = (paused.at(-1) as { approvalId: string }).approvalId;
    expect((await user.data(DecideApprovalDocument, { id: approvalId, approve: true })).decideApproval.__typename).toBe('DecideApprovalSuccess');
    const events = await followTurn(env.server.url, user, sent.turn.id, paused.at(-1)!.seq);
    expect(toolResults(events)).toEqual([{ name: 'refund', result: 'refund 1 of order-7', isError: false }]);
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
  });

  it('lists the tools again when the server announces a change, and reconnects to a server that died', async () => {
    const user = await weatherUser();
    env.fake.enqueue(
      { toolCalls: [{ id: 'a1', name: 'add_forecast_tool', arguments: {} }] },
      { toolCalls: [{ id: 'f1', name: 'get_forecast', arguments: { city: 'Oslo' } }] },
      { text: 'Rain.' },
    );
    const { events } = await chat(env.server.url, user, { content: 'Forecast for Oslo?', agent: 'weather-agent' });
    expect(env.fake.chatRequests[1]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain('get_forecast');
    expect(toolResults(events)).toEqual([
      { name: 'add_forecast_tool', result: 'added', isError: false },
      { name: 'get_forecast', result: 'Rain tomorrow in Oslo', isError: false },
    ]);

    env.fake.reset();
    env.fake.enqueue(
      { toolCalls: [{ id: 'w1', name: 'get_weather', arguments: { city: 'Rome' } }] },
      { toolCalls: [{ id: 'c1', name: 'crash', arguments: {} }] },
      { toolCalls: [{ id: 'w2', name: 'get_weather', arguments: { city: 'Rome' } }] },
      { text: 'Done.' },
    );
    const again = await chat(env.server.url, user, { content: 'Crash it', agent: 'weather-agent' });
    const [before, crash, after] = toolResults(again.events);
    // The call in flight when the process died fails; the next one starts the server again.
    expect(crash).toEqual({
      name: 'crash',
      result: { error: 'crash (MCP server weather) failed: MCP error -32000: Connection closed', code: 'TOOL_FAILED' },
      isError: true,
    });
    const pid = (r: typeof before) => /\(pid (\d+)\)/.exec(String(r!.result))![1];
    expect(after, JSON.stringify(after)).toMatchObject({ isError: false });
    expect(pid(after)).not.toBe(pid(before));
  });

  it('reads the server’s resources with read_resource and list_resources, and the content reaches the model', async () => {
    const user = newUser(env.server.url);
    await registerAgent(
      user,
      'name: station-reader\ndescription: You know the stations.\ntools:\n  - name: list_resources\n    server: weather\n  - name: read_resource\n    server: weather\n    description: Stations are at weather://stations.\n',
    );
    env.fake.enqueue(
      { toolCalls: [{ id: 'l1', name: 'list_resources', arguments: {} }] },
      {
        toolCalls: [
          { id: 'r1', name: 'read_resource', arguments: { uri: 'weather://stations' } },
          { id: 'r2', name: 'read_resource', arguments: { uri: 'weather://nowhere' } },
          { id: 'r3', name: 'read_resource', arguments: { url: 'weather://stations' } },
        ],
      },
      { text: 'Lisbon, Porto, Oslo and Rome have stations.' },
    );
    const { events, turn } = await chat(env.server.url, user, { content: 'Which cities have stations?', agent: 'station-reader' });
    const specs = env.fake.chatRequests[0]!.body.tools.map((t: { function: unknown }) => t.function);
    expect(specs.map((s: { name: string }) => s.name)).toEqual(['list_resources', 'read_resource']);
    expect(specs[1]).toEqual({
      name: 'read_resource',
      description: 'Read a resource of the weather MCP server by its URI (see list_resources), with its content.\n\nStations are at weather://stations.',
      parameters: expect.objectContaining({ required: ['uri'] }),
    });
    expect(toolResults(events)).toEqual([
      {
        name: 'list_resources',
        result: {
          resources: [{ uri: 'weather://stations', name: 'stations', description: 'Cities with a weather station.', mimeType: 'text/plain' }],
          templates: [],
        },
        isError: false,
      },
      { name: 'read_resource', result: 'Stations: Lisbon, Porto, Oslo, Rome', isError: false },
      {
        name: 'read_resource',
        result: {
          // The SDK repeats its prefix.
          error: 'read_resource (MCP server weather) failed: MCP error -32602: MCP error -32602: Resource weather://nowhere not found',
          code: 'TOOL_FAILED',
        },
        isError: true,
      },
      { name: 'read_resource', result: { error: expect.stringMatching(/^Invalid arguments for read_resource: /) }, isError: true },
    ]);
    const toolMessages = env.fake.chatRequests[2]!.body.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(toolMessages.find((m: { tool_call_id: string }) => m.tool_call_id === 'r1').content).toContain('Stations: Lisbon, Porto, Oslo, Rome');
    expect(turn.status).toBe('COMPLETED');
  });

  it('refuses an agent naming an MCP server that is not declared', async () => {
    const user = newUser(env.server.url);
    const res = await user.data(RegisterAgentDocument, { yaml: 'name: lost\ndescription: x\ntools:\n  - name: get_weather\n    server: nowhere\n' });
    expect(res.registerAgent).toMatchObject({
      __typename: 'ValidationError',
      issues: [{ path: ['tools', '0', 'server'], message: 'unknown MCP server "nowhere" (declare it in MCP_SERVERS or mcp.yaml)' }],
    });
  });
});

/** Follows a turn until it pauses for approval (the stream itself stays open until the turn ends). */
async function followUntilPaused(user: Caller, turnId: string) {
  const { collect, wsClient } = await import('../support/client.js');
  const { TurnEventsDocument } = await import('../generated/graphql.js');
  const client = wsClient(env.server.url, user.headers);
  try {
    const sub = collect(client, TurnEventsDocument, { turnId }, (items) => items.at(-1)?.data?.turnEvents.__typename === 'ApprovalNeededEvent');
    return (await sub.done).map((i) => i.data!.turnEvents);
  } finally {
    await client.dispose();
  }
}
