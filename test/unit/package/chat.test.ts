// The chat contributions of package.json as VS Code 1.139 reads them (issue 29, item 4), and what
// VS Code 1.100 (engines.vscode) must still accept.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const tools: { name: string; toolReferenceName: string; tags: string[] }[] = pkg.contributes.languageModelTools;
const skills: { path: string }[] = pkg.contributes.chatSkills ?? [];

/** A SKILL.md's front matter (the `---` block: `key: value` lines) and its body. */
function skillFile(file: string): { header: Record<string, string>; body: string } {
  const text = fs.readFileSync(file, 'utf8');
  const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  assert.ok(m, `${file} starts with a front matter block`);
  const header = Object.fromEntries(m[1]!.split('\n').map((l) => /^(\w[\w-]*):\s*(.*)$/.exec(l)).filter((x) => x !== null).map((x) => [x[1]!, x[2]!]));
  return { header, body: m[2]! };
}

describe('package.json: chat contributions (VS Code 1.139; ignored by 1.100)', () => {
  it('keeps engines.vscode at ^1.100.0 and declares no API proposal (the Marketplace refuses a VSIX that does)', () => {
    assert.equal(pkg.engines.vscode, '^1.100.0');
    assert.equal(pkg.enabledApiProposals, undefined);
  });

  it('contributes no languageModelToolSets: 1.139 refuses them without the contribLanguageModelToolSets proposal, and a contributed set turns off the one VS Code makes of our tools', () => {
    // VS Code 1.139 (workbench.contrib.toolsExtensionPointHandler): a languageModelToolSets entry of
    // an extension without that proposal is an error ("CANNOT register language model tools
    // because the 'contribLanguageModelToolSets' API proposal is not enabled"), and only an
    // extension with no such entry gets the automatic tool set of all its tools (named by the
    // extension id). Every tool carries the tag `svc` instead.
    assert.equal(pkg.contributes.languageModelToolSets, undefined);
    for (const t of tools) assert.ok(t.tags.includes('svc'), `${t.name} is tagged svc`);
  });

  it('contributes the diagnose-art-run skill as 1.139 validates it: SKILL.md in a folder named as the skill, a description of at most 1024 characters', () => {
    assert.deepEqual(
      skills.map((s) => s.path),
      ['./skills/diagnose-art-run/SKILL.md'],
    );
    for (const s of skills) {
      assert.deepEqual(Object.keys(s), ['path'], 'name and description belong in the file (deprecated in the contribution)');
      const file = path.join(root, s.path);
      assert.ok(fs.existsSync(file), s.path);
      assert.equal(path.basename(file), 'SKILL.md');
      const { header } = skillFile(file);
      assert.equal(header.name, path.basename(path.dirname(file)), 'the folder name is the skill name');
      assert.match(header.name!, /^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase letters, digits and single hyphens');
      assert.ok(header.name!.length <= 64);
      assert.ok(header.description && header.description.length <= 1024, 'a description (the agent decides by it when to load the skill)');
      assert.doesNotMatch(header.description!, /<[^>]+>/, 'no tags (VS Code strips them)');
    }
  });

  it('teaches the diagnosis in the order a person would: summary, trainable share, worst groups, scenario across steps', () => {
    const { body } = skillFile(path.join(root, skills[0]!.path));
    const steps = [...body.matchAll(/^\d+\. \*\*([^*]+)\*\*/gm)].map((m) => m[1]!.replace(/\.$/, ''));
    assert.deepEqual(steps, ['Summary of the run', 'Trainable share', 'Worst groups', 'One scenario across steps']);
    // Each step names the tool it calls, and the tools it names are ours.
    const sections = body.split(/^\d+\. /m).slice(1);
    assert.match(sections[0]!, /`svc_summarize_run`/, 'the summary calls svc_summarize_run');
    for (const s of sections.slice(1)) assert.match(s, /`svc_summarize_trajectories`|same result's table/, 'the groups come from svc_summarize_trajectories');
    const named = new Set([...body.matchAll(/`(svc_\w+)`/g)].map((m) => m[1]!));
    const ours = new Set(tools.map((t) => t.name));
    for (const n of named) assert.ok(ours.has(n), `${n} is one of our tools`);
    for (const t of tools) assert.ok(named.has(t.name), `the skill says what ${t.name} is for (or not to call it)`);
    for (const m of body.matchAll(/`#(\w+)`/g)) assert.ok(tools.some((t) => t.toolReferenceName === m[1]), `#${m[1]} is a tool reference name`);
  });

  it('lists the words an agent must never claim without a tool result', () => {
    const { body } = skillFile(path.join(root, skills[0]!.path));
    const at = body.indexOf('## Never claim without a tool result');
    assert.ok(at > 0, 'a section of its own');
    const never = body.slice(at);
    for (const word of ['improving', 'plateau', 'falling', 'No learning signal', 'zero variance', 'trainable', 'Best checkpoint', 'Valid', 'Uploaded', 'attached', 'The same scenario', 'Any number']) {
      assert.ok(never.includes(word), `"${word}" is in the list`);
    }
    assert.match(never, /not checked/);
  });
});
