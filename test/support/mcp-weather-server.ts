/**
 * A real MCP server speaking stdio, for tests of agents using MCP tools. Run it as
 * `node --import tsx test/support/mcp-weather-server.ts`; it serves until stdin closes.
 *
 *   get_weather {city}     text answer; "Atlantis" is an error result
 *   slow {ms}              answers after ms milliseconds (for timeouts)
 *   refund {order}         counts its calls ("refund 1 of order-7")
 *   add_forecast_tool {}   registers get_forecast, announcing the list change
 *   crash {}               exits the process without answering (the client must reconnect)
 *
 * and one resource, weather://stations (text: the cities with a station); any other URI is an error.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'weather', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
let refunds = 0;

server.registerTool(
  'get_weather',
  { description: 'Current weather for a city.', inputSchema: { city: z.string().min(1).describe('City name') } },
  async ({ city }) =>
    city === 'Atlantis' ? { ...text(`No weather station in ${city}`), isError: true } : text(`Sunny, 21 °C in ${city} (pid ${process.pid})`),
);
server.registerTool('slow', { description: 'Answers after a while.', inputSchema: { ms: z.number().int().min(0) } }, async ({ ms }) => {
  await sleep(ms);
  return text('done');
});
server.registerTool('refund', { description: 'Refunds an order.', inputSchema: { order: z.string() } }, async ({ order }) =>
  text(`refund ${++refunds} of ${order}`),
);
server.registerTool('add_forecast_tool', { description: 'Adds the forecast tool.' }, async () => {
  server.registerTool('get_forecast', { description: 'Tomorrow’s weather.', inputSchema: { city: z.string() } }, async ({ city }) =>
    text(`Rain tomorrow in ${city}`),
  );
  return text('added');
});
server.registerTool('crash', { description: 'Stops the server process before answering.' }, async () => process.exit(1));

server.registerResource('stations', 'weather://stations', { description: 'Cities with a weather station.', mimeType: 'text/plain' }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Stations: Lisbon, Porto, Oslo, Rome' }],
}));

await server.connect(new StdioServerTransport());
