// Answers the workbench's modal dialogs for an in-host suite, on request. The extension host cannot
// click a dialog of VS Code's own (dialogService.confirm: for instance the confirmation VS Code shows
// before it runs a language model tool called outside a chat), and the suite cannot patch it (it
// lives in the browser). So a suite prints one line,
//   [svc-host-dialog] {"button":"Cancel","report":"/tmp/…/dialog.json"}
// and this waits for the dialog (up to 30 s), writes what it shows to `report` (message, detail,
// button labels, the button clicked) and clicks the button with that label. With no such button it
// reports the labels and presses Escape, so the suite fails with a readable message, never hangs.
// The extension host runs on this machine (code-server on loopback), so the report file is shared.
'use strict';

const fs = require('fs');

const MARK = '[svc-host-dialog] ';

/** Returns a handler for the host's console lines: true when the line was a dialog request (consumed). */
function dialogAnswerer(page, log = () => {}) {
  return (text) => {
    const at = text.indexOf(MARK);
    if (at < 0) return false;
    let request;
    try {
      request = JSON.parse(text.slice(at + MARK.length));
    } catch {
      log(`[host-tests] unreadable dialog request: ${text}`);
      return true;
    }
    answer(page, request).then(
      (report) => fs.writeFileSync(request.report, JSON.stringify(report)),
      (e) => fs.writeFileSync(request.report, JSON.stringify({ error: String(e && e.message ? e.message : e) })),
    );
    return true;
  };
}

async function answer(page, { button, timeoutMs = 30_000 }) {
  const box = page.locator('.monaco-dialog-box').last();
  try {
    await box.waitFor({ state: 'visible', timeout: timeoutMs });
  } catch {
    return { error: `no dialog within ${timeoutMs / 1000} s` };
  }
  const text = async (selector) => ((await box.locator(selector).allInnerTexts().catch(() => [])).join('\n').trim());
  const message = await text('.dialog-message-text');
  const detail = await text('.dialog-message-detail');
  const buttons = (await box.locator('.dialog-buttons .monaco-button').allInnerTexts()).map((b) => b.trim());
  const index = buttons.indexOf(button);
  if (index < 0) {
    await page.keyboard.press('Escape');
    return { message, detail, buttons, error: `no button "${button}" (pressed Escape)` };
  }
  await box.locator('.dialog-buttons .monaco-button').nth(index).click();
  await box.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
  return { message, detail, buttons, clicked: button };
}

module.exports = { dialogAnswerer, MARK };
