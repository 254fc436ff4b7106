// Drives `orrery mcp` with the official MCP TypeScript SDK's client over
// stdio (tests/integration/mcp_sdk_test.cc): node client.mjs ORRERY HOME SCOPE CALLS
// where CALLS is a JSON file [{name, arguments}]. Prints one JSON document:
// the server's info, the tools listed, each call's outcome (a result, or
// the JSON-RPC error the SDK raised), the resources listed and the first read.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [orrery, home, scope, callsFile] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsFile, "utf8"));

const transport = new StdioClientTransport({
  command: orrery,
  args: ["--home", home, "mcp", "--allow", scope, "--max-created-loops", "1"],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "orrery-sdk-test", version: "1.0.0" });
await client.connect(transport);

const report = {
  instructions: client.getInstructions(),
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  tools: [],
  calls: [],
  resources: [],
  read: null,
};
const listed = await client.listTools();
report.tools = listed.tools.map((tool) => ({ name: tool.name, inputSchema: tool.inputSchema }));
for (const call of calls) {
  try {
    const result = await client.callTool({ name: call.name, arguments: call.arguments });
    report.calls.push({ name: call.name, isError: result.isError ?? false,
                        structuredContent: result.structuredContent ?? null,
                        text: result.content?.[0]?.text ?? null });
  } catch (error) {
    report.calls.push({ name: call.name, error: { code: error.code ?? null, message: String(error.message) } });
  }
}
const resources = await client.listResources();
report.resources = resources.resources.map((resource) => resource.uri);
if (report.resources.length > 0) {
  const read = await client.readResource({ uri: report.resources[0] });
  report.read = read.contents[0];
}
try {
  await client.readResource({ uri: "orrery://nothing" });
} catch (error) {
  report.badRead = { code: error.code ?? null, message: String(error.message) };
}
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
