// Writes the language model tools of package.json (contributes.languageModelTools) from the tools' code
// (src/agents/core/tools.ts): names, descriptions and input schemas. test/unit/agents/core.test.ts
// fails when they differ.   npx tsx scripts/agents-manifest.ts
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inputSchemaOf, TOOLS } from '../src/agents/core/tools';
const refs: Record<string, [string, string, string]> = {
  svc_list_threads: ['svcThreads', '$(comment-discussion)', 'List the conversation threads of an svc project, with turns and durations.'],
  svc_list_checkpoints: ['svcCheckpoints', '$(history)', "List a model's checkpoints, with the best and the latest."],
  svc_summarize_run: ['svcRunHealth', '$(pulse)', "Summarize a training run's health: reward trend, spread, exceptions."],
  svc_summarize_trajectories: ['svcTrajectories', '$(graph)', 'Summarize a trajectory file per group: rewards, zero variance, exceptions, problems.'],
  svc_explain_trajectory: ['svcExplainTrajectory', '$(question)', 'Explain whether ART trains on one trajectory, and why not, with the numbers.'],
  svc_scenario_history: ['svcScenarioHistory', '$(timeline-open)', 'Follow one scenario of an ART run across its steps: rewards, final answers, where the answer changed.'],
  svc_search_trajectories: ['svcSearchRun', '$(search)', 'Search every step of a training run for a word or a pattern, with filters.'],
  svc_attach_feedback: ['svcFeedback', '$(feedback)', 'Attach a note, a reaction or custom feedback to a call (asks first).'],
  svc_upload_trajectories: ['svcUpload', '$(cloud-upload)', "Upload trajectory files to a model's log (asks first)."],
};
interface Manifest {
  contributes: { languageModelTools?: unknown[]; mcpServerDefinitionProviders?: unknown[]; commands: { command: string; title: string; category?: string; icon?: string }[] };
}
const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as Manifest;
pkg.contributes.languageModelTools = TOOLS.map((t) => ({
  name: t.name,
  displayName: t.title,
  toolReferenceName: refs[t.name]![0],
  canBeReferencedInPrompt: true,
  icon: refs[t.name]![1],
  userDescription: refs[t.name]![2],
  modelDescription: t.description,
  tags: ['svc', t.write ? 'write' : 'read'],
  inputSchema: inputSchemaOf(t),
}));
pkg.contributes.mcpServerDefinitionProviders = [{ id: 'svc.mcp', label: 'svc' }];
const cmds = pkg.contributes.commands;
if (!cmds.some((c) => c.command === 'svc.copyMcpConfig')) {
  const i = cmds.findIndex((c) => c.command === 'svc.showLog');
  cmds.splice(i + 1, 0, { command: 'svc.copyMcpConfig', title: '%command.copyMcpConfig%', category: 'svc', icon: '$(copy)' });
}
fs.writeFileSync(path.join(__dirname, '..', 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
