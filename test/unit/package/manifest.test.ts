import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const nls: Record<string, string> = JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8'));
const text = (s: string) => s.replace(/^%(.+)%$/, (_, k: string) => nls[k] ?? `<missing ${k}>`);

interface Step {
  id: string;
  title: string;
  description: string;
  media: Record<string, string>;
  completionEvents?: string[];
}

describe('package.json: what a new user sees first', () => {
  const welcome: { view: string; contents: string; when: string }[] = pkg.contributes.viewsWelcome;
  const walkthrough: { steps: Step[]; title: string } = pkg.contributes.walkthroughs?.[0];

  it('has a Getting Started walkthrough with the welcome views\' steps, each completed by its command', () => {
    assert.ok(walkthrough, 'contributes.walkthroughs');
    assert.match(text(walkthrough.title), /svc/);
    // The buttons of the service views' welcome views, in order: the walkthrough offers the same
    // commands (the Runs view's welcome is about files on disk, not the service).
    const welcomeCommands = [...new Set(welcome.filter((w) => w.view !== 'svc.runs').flatMap((w) => [...w.contents.matchAll(/\(command:(svc\.[\w.]+)\)/g)].map((m) => m[1]!)))];
    assert.deepEqual(welcomeCommands, ['svc.setBaseUrl', 'svc.signIn', 'svc.selectProject', 'svc.checkpoints.addModel']);
    const stepCommands = walkthrough.steps.map((s) => /\(command:([\w.]+)\)/.exec(text(s.description))?.[1]);
    assert.deepEqual(stepCommands.slice(0, 4), welcomeCommands, 'the same steps in the same order');
    const commands = new Set<string>(pkg.contributes.commands.map((c: { command: string }) => c.command));
    for (const [i, step] of walkthrough.steps.entries()) {
      const command = stepCommands[i]!;
      assert.ok(commands.has(command) || command.startsWith('workbench.'), `${step.id}: ${command} is a contributed command`);
      if (command.startsWith('svc.')) assert.ok(step.completionEvents?.includes(`onCommand:${command}`), `${step.id} is completed by ${command}`);
      for (const file of Object.entries(step.media).filter(([k]) => k !== 'altText').map(([, v]) => v)) {
        assert.ok(fs.existsSync(path.join(root, file)), `${step.id}: ${file} exists`);
      }
      assert.doesNotMatch(text(step.title), /<missing/);
      assert.doesNotMatch(text(step.description), /<missing|`/, `${step.id}: no literal backticks`);
    }
  });

  it('the Runs view has a welcome view for a workspace without a run, naming the layout and offering to look again', () => {
    const runs = welcome.filter((w) => w.view === 'svc.runs');
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!.when, 'svc.runs.none');
    assert.match(runs[0]!.contents, /\.art\/<project>\/models\/<model>\//);
    assert.match(runs[0]!.contents, /\(command:svc\.runs\.refresh\)/);
  });

  it('welcome views have no literal backticks (they show as backticks, not code)', () => {
    for (const w of welcome) assert.doesNotMatch(w.contents, /`/, w.contents);
  });

  it('has a 128x128 PNG marketplace icon', () => {
    assert.equal(pkg.icon, 'media/icon.png');
    const png = fs.readFileSync(path.join(root, pkg.icon));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    assert.equal(png.readUInt32BE(16), 128, 'width');
    assert.equal(png.readUInt32BE(20), 128, 'height');
  });

  it('has an activity-bar icon of its own: a speech bubble, not the branching graph of Source Control', () => {
    const icon = pkg.contributes.viewsContainers.activitybar[0].icon as string;
    const svg = fs.readFileSync(path.join(root, icon), 'utf8');
    assert.match(svg, /stroke="currentColor"/, 'monochrome, so the theme colours it');
    assert.ok((svg.match(/<circle/g) ?? []).length < 2, 'no nodes joined by branches (what Source Control draws)');
  });

  it('contributes svc.feedback.creator, and the JSON of a thread as its own command', () => {
    const creator = pkg.contributes.configuration.properties['svc.feedback.creator'];
    assert.equal(creator.type, 'string');
    assert.equal(creator.default, '');
    assert.ok(pkg.contributes.commands.some((c: { command: string }) => c.command === 'svc.threads.openJson'));
  });
});
