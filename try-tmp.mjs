import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const t = new StdioClientTransport({ command: 'node', args: ['dist/mcp.js'], env: { ...process.env, SVC_BASE_URL: 'http://127.0.0.1:8791', SVC_API_KEY: 'demo-key', SVC_PROJECT: process.argv[2] }, stderr: 'inherit' });
const c = new Client({ name: 't', version: '1' });
await c.connect(t);
for (const [name, args] of JSON.parse(process.argv[3])) {
  const r = await c.callTool({ name, arguments: args });
  console.log(`=== ${name} ${JSON.stringify(args)} isError=${r.isError}\n${r.content[0].text}\n`);
}
await c.close();
