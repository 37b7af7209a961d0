/**
 * The agents' tools: the language model tools (Copilot) and the MCP server's environment, on the
 * same connection and key approvals as the commands (they never prompt), and Copy MCP Config.
 */
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { SentUploads } from '../trajectories/sent';
import { ConnectionHost } from './connectionHost';
import { languageModelTools, type AgentsCore } from './lmTools';
import { mcpEnvironment, registerMcpConfigCommand } from './mcpConfig';

export interface AgentsDeps extends Pick<FeatureDeps, 'commands' | 'log' | 'connection' | 'storage'> {
  /** Hands the tools and the MCP server's environment to the stand-ins of src/boot/agents.ts. */
  readonly agents: (core: AgentsCore) => void;
}

export function activateAgents({ commands, log, connection, storage, agents }: AgentsDeps): Feature<ConnectionHost> {
  const host = new ConnectionHost(connection, (text) => log.redact(text), new SentUploads(storage.workspaceState));
  agents({ tools: languageModelTools(host), mcpEnvironment: () => mcpEnvironment(connection, log) });
  return feature(host, [registerMcpConfigCommand({ commands, connection, extensionUri: storage.extensionUri })]);
}
