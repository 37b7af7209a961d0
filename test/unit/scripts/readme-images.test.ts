import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const images = require('../../../scripts/readme-images.js') as {
  readmeImageTargets: (text: string) => string[];
  readmeImageProblems: (packaged: string) => string[];
  packagedReadme: (text: string, root: string, repositoryUrl: string | undefined) => string;
};

const root = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const png = (file: string) => `data:image/png;base64,${fs.readFileSync(path.join(root, file)).toString('base64')}`;

describe('scripts/readme-images.js: the packaged README carries its images (the Extensions view shows them offline)', () => {
  it('finds Markdown and HTML images', () => {
    const text = '![a](media/readme/a.png) text ![b](<media/readme/b.png> "title")\n<img alt="x" src="media/readme/c.png">';
    assert.deepEqual(images.readmeImageTargets(text), ['media/readme/a.png', 'media/readme/b.png', 'media/readme/c.png']);
  });

  it('inlines each image as a data: URI of its file, and points other relative links at the repository', () => {
    const text = '![one](media/readme/details.png "t") see [usage](docs/usage.md#x) and [ART](https://github.com/OpenPipe/ART)\n<img alt="v" src="media/readme/viewer-dark.png">\n[top](#install)';
    const out = images.packagedReadme(text, root, pkg.repository.url);
    assert.equal(
      out,
      `![one](${png('media/readme/details.png')} "t") see [usage](https://github.com/svc/svc-vscode/blob/HEAD/docs/usage.md#x) and [ART](https://github.com/OpenPipe/ART)\n<img alt="v" src="${png('media/readme/viewer-dark.png')}">\n[top](#install)`,
    );
    assert.deepEqual(images.readmeImageProblems(out), []);
  });

  it('refuses an image that is missing or cannot be inlined', () => {
    assert.throws(() => images.packagedReadme('![x](media/readme/nope.png)', root, pkg.repository.url), /media\/readme\/nope\.png: no such file/);
    assert.throws(() => images.packagedReadme('![x](media/svc.svg)', root, pkg.repository.url), /only PNG, JPEG and GIF/);
  });

  it('fails a packaged README whose images load from a path or a URL (broken offline)', () => {
    assert.equal(images.readmeImageProblems('![x](https://github.com/svc/svc-vscode/raw/HEAD/media/readme/details.png)').length, 1);
    assert.equal(images.readmeImageProblems('![x](media/readme/details.png)').length, 1);
    assert.equal(images.readmeImageProblems('<img src="data:image/svg+xml;base64,PHN2Zz4=">').length, 1);
  });

  it('README.md names only images under media/readme/ that exist', () => {
    const targets = images.readmeImageTargets(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
    assert.ok(targets.length >= 1 && targets.length <= 3, `one to three pictures on the front page: ${targets.join(', ')}`);
    for (const t of targets) {
      assert.match(t, /^media\/readme\/[\w-]+\.png$/);
      assert.ok(fs.existsSync(path.join(root, t)), t);
    }
  });

  it('package.json links the repository, its issues and its home page for the Marketplace', () => {
    assert.equal(pkg.repository.url, 'https://github.com/svc/svc-vscode.git');
    assert.equal(pkg.bugs.url, 'https://github.com/svc/svc-vscode/issues');
    assert.equal(pkg.homepage, 'https://github.com/svc/svc-vscode#readme');
  });
});
