// The page the Extensions view shows for an installed extension is the packaged README, rendered in
// a webview whose CSP is `img-src https: data:`. VS Code 1.103 and later drop `data:` images from
// that page (microsoft/vscode-vsce#1196), so the packaged README names its images by https URL:
// vsce's own rewrite of README.md's relative paths, from package.json's `repository`
// (https://github.com/<owner>/<repo>/raw/HEAD/<path>). Offline, the page shows each image's alt
// text, so the alt text says what the picture shows. `npm run package` (scripts/check-package.js)
// checks the packaged README with readmeImageProblems below.
'use strict';

const MARKDOWN_IMAGE = /!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(\s+"[^"]*")?\s*\)/g;
const HTML_IMAGE = /<img\b[^>]*>/gi;
const attribute = (tag, name) => new RegExp(`\\b${name}\\s*=\\s*(["'])(.*?)\\1`, 'i').exec(tag)?.[2];

/** The images a Markdown text names, in order: `![alt](src "title")` and `<img alt="..." src="...">`. */
function readmeImages(text) {
  const markdown = [...text.matchAll(MARKDOWN_IMAGE)].map((m) => ({ alt: m[1], src: m[2] }));
  const html = [...text.matchAll(HTML_IMAGE)].map((m) => ({ alt: attribute(m[0], 'alt') ?? '', src: attribute(m[0], 'src') ?? '' }));
  return markdown.concat(html);
}

/** The image targets a Markdown text names. */
function readmeImageTargets(text) {
  return readmeImages(text).map((i) => i.src);
}

/**
 * The base URL vsce 3.9 puts before a relative image path (MarkdownProcessor.guessBaseUrls, branch
 * HEAD): `https://github.com/<owner>/<repo>/raw/HEAD` for a GitHub repository, undefined otherwise.
 */
function vsceImageBase(repositoryUrl) {
  const m = /(?<domain>github(\.com\/|:))(?<project>(?:[^/]+)\/(?:[^/]+))(\/|$)/.exec(repositoryUrl ?? '');
  return m ? `https://github.com/${m.groups.project.replace(/\.git$/i, '')}/raw/HEAD` : undefined;
}

/** The repository path an image URL of the packaged README names, or undefined when it is not one of the repository's files. */
function repositoryPathOfImage(src, repositoryUrl) {
  const base = vsceImageBase(repositoryUrl);
  if (!base || !src.startsWith(`${base}/`)) return undefined;
  const rest = src.slice(base.length + 1).split(/[?#]/)[0];
  let decoded;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  return decoded && !decoded.split('/').some((part) => part === '' || part === '.' || part === '..') ? decoded : undefined;
}

/** An alt text that says what the picture shows: some words, not a file name. */
function altProblem(alt) {
  if (!alt.trim()) return 'it has no alt text (offline the page shows nothing in its place)';
  if (/\.(png|jpe?g|gif|svg)$/i.test(alt.trim()) || alt.trim().split(/\s+/).length < 6) return `its alt text "${alt}" does not say what the picture shows (offline the page shows only that text)`;
  return undefined;
}

/**
 * What is wrong with the images of a packaged README: one message per image that is a data: URI
 * (VS Code 1.103 and later do not show it), is not an https URL of one of the repository's files
 * (`isTracked(path)`: the file is in git), or whose alt text does not say what it shows.
 */
function readmeImageProblems(packaged, repositoryUrl, isTracked) {
  const problems = [];
  for (const { alt, src } of readmeImages(packaged)) {
    const shown = src.length > 80 ? `${src.slice(0, 77)}...` : src;
    if (/^data:/i.test(src.trim())) {
      problems.push(`${shown}: a data: image (VS Code 1.103 and later show only its alt text); name the file by its repository URL`);
      continue;
    }
    const file = repositoryPathOfImage(src, repositoryUrl);
    if (file === undefined) problems.push(`${shown}: not an https URL of a file of the repository (${vsceImageBase(repositoryUrl) ?? 'package.json has no GitHub repository'}/<path>)`);
    else if (!isTracked(file)) problems.push(`${shown}: ${file} is not a file of the repository (not in git)`);
    const bad = altProblem(alt);
    if (bad) problems.push(`${shown}: ${bad}`);
  }
  return problems;
}

module.exports = { readmeImages, readmeImageTargets, readmeImageProblems, repositoryPathOfImage, vsceImageBase };
