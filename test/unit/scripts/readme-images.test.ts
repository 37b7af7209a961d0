import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const images = require('../../../scripts/readme-images.js') as {
  readmeImageTargets: (text: string) => string[];
  readmeImageProblems: (readme: string, files: string[], base: string | undefined) => string[];
  vsceImageBase: (url: string | undefined) => string | undefined;
};

const root = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const base = 'https://github.com/svc/svc-vscode/raw/HEAD/';

describe('scripts/readme-images.js: every image the packaged README names is inside the VSIX', () => {
  it('finds Markdown and HTML images', () => {
    const text = '![a](media/readme/a.png) text ![b](<media/readme/b.png> "title")\n<img alt="x" src="media/readme/c.png">';
    assert.deepEqual(images.readmeImageTargets(text), ['media/readme/a.png', 'media/readme/b.png', 'media/readme/c.png']);
  });

  it('maps vsce\'s rewritten URLs back to the package and passes when every image is there', () => {
    const readme = `![one](${base}media/readme/details.png)\n<img src="${base}media/readme/viewer-dark.png">`;
    assert.deepEqual(images.readmeImageProblems(readme, ['README.md', 'media/readme/details.png', 'media/readme/viewer-dark.png'], base), []);
  });

  it('fails when an image the README names is missing from the VSIX', () => {
    const readme = `![one](${base}media/readme/details.png)\n![two](${base}media/screenshots/dashboard.png)`;
    assert.deepEqual(images.readmeImageProblems(readme, ['README.md', 'media/readme/details.png'], base), [
      `${base}media/screenshots/dashboard.png: media/screenshots/dashboard.png is not in the VSIX`,
    ]);
  });

  it('fails on an image loaded from another site, and on a relative one not packaged', () => {
    assert.equal(images.readmeImageProblems('![x](https://example.com/x.png)', [], base).length, 1);
    assert.equal(images.readmeImageProblems('![x](./media/readme/x.png)', ['media/readme/y.png'], base).length, 1);
    assert.deepEqual(images.readmeImageProblems('![x](./media/readme/x.png)', ['media/readme/x.png'], base), []);
  });

  it('knows the base vsce uses for package.json\'s repository', () => {
    assert.equal(images.vsceImageBase(pkg.repository.url), base);
    assert.equal(images.vsceImageBase('https://gitlab.com/a/b'), undefined);
  });

  it('README.md names only images under media/readme/ that exist, and .vscodeignore ships that folder', () => {
    const targets = images.readmeImageTargets(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
    assert.ok(targets.length >= 1 && targets.length <= 3, `one to three pictures on the front page: ${targets.join(', ')}`);
    for (const t of targets) {
      assert.match(t, /^media\/readme\/[\w-]+\.png$/);
      assert.ok(fs.existsSync(path.join(root, t)), t);
    }
    assert.match(fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8'), /^!media\/readme\/\*\.png$/m);
  });

  it('package.json links the repository, its issues and its home page for the Marketplace', () => {
    assert.equal(pkg.repository.url, 'https://github.com/svc/svc-vscode.git');
    assert.equal(pkg.bugs.url, 'https://github.com/svc/svc-vscode/issues');
    assert.equal(pkg.homepage, 'https://github.com/svc/svc-vscode#readme');
  });
});
