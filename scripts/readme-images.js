// The page the Extensions view shows for an installed extension is the packaged README, rendered
// in a webview whose CSP is `img-src https: data:` with no base URL (VS Code's extensionEditor): a
// relative path does not load, and an https URL needs the network (and a public repository). So
// the packaged README carries its images as data: URIs, written at packaging time from the files
// README.md names (issue 21), and its other relative links point at the repository, as vsce's own
// rewrite would. `npm run package` checks that every image of the packaged README is such a URI.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const MIME = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif' };
const MARKDOWN_IMAGE = /!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(\s+"[^"]*")?\s*\)/g;
const HTML_IMAGE = /(<img\b[^>]*\bsrc\s*=\s*["'])([^"']+)(["'])/gi;
const isAbsolute = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//') || target.startsWith('#');

/** The image targets a Markdown text names: `![alt](target "title")` and `<img src="target">`. */
function readmeImageTargets(text) {
  return [...text.matchAll(MARKDOWN_IMAGE)].map((m) => m[2]).concat([...text.matchAll(HTML_IMAGE)].map((m) => m[2]));
}

/** The base URL vsce puts before a relative link (`blob`) or image (`raw`), for package.json's repository URL. */
function vsceBase(repositoryUrl, kind) {
  const m = /^(?:git\+)?https:\/\/github\.com\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(repositoryUrl ?? '');
  return m ? `https://github.com/${m[1]}/${m[2]}/${kind}/HEAD/` : undefined;
}

/** The base URL vsce puts before a relative image path. */
function vsceImageBase(repositoryUrl) {
  return vsceBase(repositoryUrl, 'raw');
}

/**
 * README.md as the VSIX carries it: each image a relative path names becomes a data: URI of that
 * file (read from `root`), and each other relative link a link to the file in the repository.
 * Throws, naming the image, when a file is missing or not a PNG, JPEG or GIF (vsce refuses SVG).
 */
function packagedReadme(text, root, repositoryUrl) {
  const inline = (target) => {
    if (isAbsolute(target)) return target;
    const file = path.join(root, decodeURIComponent(target.split(/[?#]/)[0]));
    const mime = MIME[path.extname(file).toLowerCase()];
    if (!mime) throw new Error(`README image ${target}: only PNG, JPEG and GIF can be inlined`);
    if (!fs.existsSync(file)) throw new Error(`README image ${target}: no such file`);
    return `data:${mime};base64,${fs.readFileSync(file).toString('base64')}`;
  };
  const base = vsceBase(repositoryUrl, 'blob');
  return text
    .replace(MARKDOWN_IMAGE, (_, alt, target, title) => `![${alt}](${inline(target)}${title ?? ''})`)
    .replace(HTML_IMAGE, (_, open, target, close) => `${open}${inline(target)}${close}`)
    .replace(/(?<!!)\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(\s+"[^"]*")?\s*\)/g, (all, label, target, title) => (isAbsolute(target) || !base ? all : `[${label}](${base}${target.replace(/^\.\//, '')}${title ?? ''})`));
}

/**
 * What is wrong with the images of a packaged README: one message per image that is not a data:
 * URI of a PNG, JPEG or GIF (anything else is a broken box in the Extensions view offline).
 */
function readmeImageProblems(packaged) {
  return readmeImageTargets(packaged)
    .filter((target) => !/^data:image\/(png|jpeg|gif);base64,[A-Za-z0-9+/]+=*$/.test(target))
    .map((target) => `${target.length > 80 ? target.slice(0, 77) + '...' : target}: not inside the README (the Extensions view shows only data: images offline)`);
}

module.exports = { readmeImageTargets, readmeImageProblems, packagedReadme, vsceImageBase };
