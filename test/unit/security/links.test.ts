// Issue 19, item 12: links in untrusted trajectory files are not live in the viewer.
import assert from 'node:assert/strict';
import { renderMarkdown } from '../../../src/viewer/webview/markdown';

describe('issue 19: promises under attack', () => {
  describe('hostile input', () => {
    it('12. links in trajectory markdown render as text that shows the target: no vscode:, https: or command: link is clickable', () => {
      const html = renderMarkdown(
        'See [the docs](https://evil.example/x?a=1&b=2), [install](vscode://some.extension/run?cmd=rm), [cmd](command:workbench.action.terminal.sendSequence), <https://auto.example> and [nested **bold** "q"](vscode:extension/x).',
      );
      assert.ok(!/<a[\s>]/i.test(html), html);
      assert.ok(!/href=/i.test(html), html);
      for (const target of ['https://evil.example/x?a=1&amp;b=2', 'vscode://some.extension/run?cmd=rm', 'command:workbench.action.terminal.sendSequence', 'https://auto.example', 'vscode:extension/x']) {
        assert.ok(html.includes(`(${target})`), `${target} is shown: ${html}`);
      }
      assert.match(html, /<span class="md-link"[^>]*>nested <strong>bold<\/strong> &quot;q&quot;<\/span>/);
      // A target cannot break out of the text.
      assert.ok(!renderMarkdown('[x](https://a.example/"><img src=x onerror=alert(1)>)').includes('<img'));
    });
  });
});
