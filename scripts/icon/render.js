#!/usr/bin/env node
// Renders the marketplace icon: scripts/icon/icon.svg -> media/icon.png (128x128, transparent
// corners), with the Chromium the host tests use (scripts/host/setup.js installs it).
//   node scripts/icon/render.js
'use strict';
const fs = require('node:fs');
const path = require('node:path');

async function main() {
  const root = path.resolve(__dirname, '..', '..');
  const { ensureHost } = require('../host/setup');
  const { chromiumPath } = await ensureHost();
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
    const svg = fs.readFileSync(path.join(__dirname, 'icon.svg'), 'utf8');
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    const out = path.join(root, 'media', 'icon.png');
    await page.locator('svg').screenshot({ path: out, omitBackground: true });
    console.log(`render: ${path.relative(root, out)} ${fs.statSync(out).size} bytes`);
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
