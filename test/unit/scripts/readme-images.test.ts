import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const images = require('../../../scripts/readme-images.js') as {
  readmeImages: (text: string) => { alt: string; src: string }[];
  readmeImageTargets: (text: string) => string[];
  readmeImageProblems: (packaged: string, repositoryUrl: string | undefined, isTracked: (file: string) => boolean) => string[];
  repositoryPathOfImage: (src: string, repositoryUrl: string | undefined) => string | undefined;
  vsceImageBase: (repositoryUrl: string | undefined) => string | undefined;
};
// vsce's own README rewrite (what `vsce package` writes into the VSIX).
const { ReadmeProcessor } = require('@vscode/vsce/out/package.js') as {
  ReadmeProcessor: new (manifest: object, options: object) => { onFile(file: { path: string; contents: Buffer }): Promise<{ contents: Buffer }> };
};

const root = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const repo = pkg.repository.url as string;
const tracked = new Set(spawnSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).stdout.split('\0').filter(Boolean));
const inGit = (file: string) => tracked.has(file);
const ALT = 'The trajectory viewer with a group and its conversation';

async function vscePackaged(readme: string): Promise<string> {
  const file = await new ReadmeProcessor(pkg, {}).onFile({ path: 'extension/README.md', contents: Buffer.from(readme) });
  return file.contents.toString('utf8');
}

describe('scripts/readme-images.js: the packaged README names its images by https URL (VS Code 1.103+ drops data: images)', () => {
  it('finds Markdown and HTML images with their alt text', () => {
    const text = '![a b](media/readme/a.png) text ![](<media/readme/b.png> "title")\n<img alt="x y" src="media/readme/c.png">';
    assert.deepEqual(images.readmeImages(text), [
      { alt: 'a b', src: 'media/readme/a.png' },
      { alt: '', src: 'media/readme/b.png' },
      { alt: 'x y', src: 'media/readme/c.png' },
    ]);
    assert.deepEqual(images.readmeImageTargets(text), ['media/readme/a.png', 'media/readme/b.png', 'media/readme/c.png']);
  });

  it("maps an image URL back to the repository path exactly as vsce 3.9 writes it from package.json's repository", async () => {
    assert.equal(images.vsceImageBase(repo), 'https://github.com/svc/svc-vscode/raw/HEAD');
    assert.equal(images.vsceImageBase('git+https://github.com/a/b.git'), 'https://github.com/a/b/raw/HEAD');
    assert.equal(images.vsceImageBase('https://example.com/a/b.git'), undefined);
    const packaged = await vscePackaged(`![${ALT}](media/readme/viewer-dark.png)\n![${ALT}](./media/readme/details.png)`);
    const srcs = images.readmeImageTargets(packaged);
    assert.deepEqual(srcs, ['https://github.com/svc/svc-vscode/raw/HEAD/media/readme/viewer-dark.png', 'https://github.com/svc/svc-vscode/raw/HEAD/media/readme/details.png']);
    assert.deepEqual(srcs.map((s) => images.repositoryPathOfImage(s, repo)), ['media/readme/viewer-dark.png', 'media/readme/details.png']);
    assert.equal(images.repositoryPathOfImage('https://github.com/svc/svc-vscode/raw/HEAD/media/../x.png', repo), undefined);
    assert.equal(images.repositoryPathOfImage('https://github.com/other/repo/raw/HEAD/media/readme/details.png', repo), undefined);
  });

  it("passes README.md as vsce packages it: every image an https URL of a file in git, with an alt text that says what it shows", async () => {
    const packaged = await vscePackaged(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
    const found = images.readmeImages(packaged);
    assert.ok(found.length >= 2, `the README's pictures: ${JSON.stringify(found)}`);
    assert.deepEqual(images.readmeImageProblems(packaged, repo, inGit), []);
  });

  it('fails a data: image, an image outside the repository, a file not in git, and an alt text that says nothing', () => {
    const png = `data:image/png;base64,${fs.readFileSync(path.join(root, 'media/readme/details.png')).toString('base64')}`;
    const [data] = images.readmeImageProblems(`![${ALT}](${png})`, repo, inGit);
    assert.match(data ?? '', /^data:image\/png;base64,.*: a data: image \(VS Code 1\.103 and later show only its alt text\)/);
    assert.equal(images.readmeImageProblems(`<img alt="${ALT}" src="${png}">`, repo, inGit).length, 1, 'an HTML data: image');
    assert.match(images.readmeImageProblems(`![${ALT}](https://example.com/details.png)`, repo, inGit).join('\n'), /not an https URL of a file of the repository \(https:\/\/github\.com\/svc\/svc-vscode\/raw\/HEAD\/<path>\)/);
    assert.match(images.readmeImageProblems(`![${ALT}](media/readme/details.png)`, repo, inGit).join('\n'), /not an https URL of a file of the repository/);
    assert.match(images.readmeImageProblems(`![${ALT}](https://github.com/svc/svc-vscode/raw/HEAD/media/readme/nope.png)`, repo, inGit).join('\n'), /media\/readme\/nope\.png is not a file of the repository \(not in git\)/);
    assert.match(images.readmeImageProblems('![details.png](https://github.com/svc/svc-vscode/raw/HEAD/media/readme/details.png)', repo, inGit).join('\n'), /does not say what the picture shows/);
    assert.match(images.readmeImageProblems('![](https://github.com/svc/svc-vscode/raw/HEAD/media/readme/details.png)', repo, inGit).join('\n'), /no alt text/);
  });

  it('README.md names only PNG images under media/readme/ that are in git', () => {
    const targets = images.readmeImageTargets(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
    assert.ok(targets.length >= 1 && targets.length <= 3, `one to three pictures on the front page: ${targets.join(', ')}`);
    for (const t of targets) {
      assert.match(t, /^media\/readme\/[\w-]+\.png$/);
      assert.ok(inGit(t), t);
    }
  });

  it('package.json links the repository, its issues and its home page for the Marketplace', () => {
    assert.equal(pkg.repository.url, 'https://github.com/svc/svc-vscode.git');
    assert.equal(pkg.bugs.url, 'https://github.com/svc/svc-vscode/issues');
    assert.equal(pkg.homepage, 'https://github.com/svc/svc-vscode#readme');
  });

  it("the listing's description names the trajectory viewer and the training dashboard", () => {
    assert.match(pkg.description, /trajectory viewer/i);
    assert.match(pkg.description, /training dashboard/i);
  });
});
