// The images the packaged README names must be inside the VSIX (issue 21): the Extensions view and
// the Marketplace show the README from the package, and an image that is not there is a broken box.
// vsce rewrites a relative image path to `<repository>/raw/HEAD/<path>`; this maps such a URL back
// to the path in the package, and reports every image that is not a file of the package.
'use strict';

/** The image targets a Markdown text names: `![alt](target "title")` and `<img src="target">`. */
function readmeImageTargets(text) {
  const targets = [];
  for (const m of text.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]);
  for (const m of text.matchAll(/<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi)) targets.push(m[1]);
  return targets;
}

/** The base URL vsce puts before a relative image path, for a repository URL of package.json. */
function vsceImageBase(repositoryUrl) {
  const m = /^(?:git\+)?https:\/\/github\.com\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(repositoryUrl ?? '');
  return m ? `https://github.com/${m[1]}/${m[2]}/raw/HEAD/` : undefined;
}

/**
 * What is wrong with the images of a packaged README: `files` are the package's paths (as
 * `vsce ls` prints them), `base` the URL vsce put before relative paths. Returns one message per
 * image that is not a file of the package, or that is loaded from elsewhere.
 */
function readmeImageProblems(packagedReadme, files, base) {
  const inPackage = new Set(files);
  const problems = [];
  for (const target of readmeImageTargets(packagedReadme)) {
    let file;
    if (base && target.startsWith(base)) file = target.slice(base.length);
    else if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) {
      problems.push(`${target}: loaded from outside the VSIX`);
      continue;
    } else file = target.replace(/^\.\//, '');
    file = decodeURIComponent(file.split(/[?#]/)[0]);
    if (!inPackage.has(file)) problems.push(`${target}: ${file} is not in the VSIX`);
  }
  return problems;
}

module.exports = { readmeImageTargets, readmeImageProblems, vsceImageBase };
