import { startMcpServer } from './mcp-server.js';

/**
 * `npm run mcp:example`: the tests' MCP server on a fixed port, to try
 * harnesses with MCP tools on `npm start` (docs/api/runs.md): `/json` and
 * `/sse` serve `echo`, `fail` and `add`; `/slow` serves `slow`, which
 * answers only once this process reads a line on stdin.
 */
const port = Number(process.env.MCP_PORT ?? 8808);
const server = await startMcpServer('127.0.0.1', port);
console.log(`MCP server on ${server.base}: ${server.url('/json')} (echo, fail, add), ${server.url('/slow')} (slow: press Enter to release)`);
process.stdin.on('data', () => {
  server.slow.release();
  console.log('slow released');
});
