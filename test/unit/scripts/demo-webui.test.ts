import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from 'undici';
import { createServiceClient, parseRef, type ServiceClient } from '../../../src/api';
import { buildWebUiUrl, threadValues, WEB_UI_SETTING, type WebUiValues } from '../../../src/webUi/url';
import { startReferenceServer, webUiTemplate, type ReferenceServer } from '../../server';

const root = path.resolve(__dirname, '..', '..', '..');
const fixture = path.join(root, 'test', 'fixtures', 'demo.json');
const { demoSettings, recentTurnRefs } = require('../../../scripts/demo-workspace.js') as {
  demoSettings: (serviceUrl: string) => Record<string, unknown>;
  recentTurnRefs: (fixture: unknown, count: number) => { ref: string; thread: string }[];
};

/** What svc.openInWebUi fills in for `{ ref, threadId? }` (src/webUi/commands.ts). */
function refValues(ref: string, threadId?: string): WebUiValues {
  const parsed = parseRef(ref);
  assert.ok(parsed.ok, ref);
  const r = parsed.ref;
  return { entity: r.entity, project: r.project, ...(r.callId ? { callId: r.callId } : {}), ...(threadId ? { threadId } : {}) };
}

describe("the demo's web UI (svc.webUiUrl on the reference service's /ui/ pages)", () => {
  let server: ReferenceServer;
  let client: ServiceClient;
  let template: string;
  before(async () => {
    server = await startReferenceServer({ fixture, webUi: true });
    client = createServiceClient({ traceBaseUrl: server.url, credentials: async () => ({ username: 'api', password: 'demo-key', accessToken: 'demo-key' }), env: {} });
    const t = demoSettings(server.url)[WEB_UI_SETTING];
    template = typeof t === 'string' ? t : '';
  });
  after(async () => {
    await client.close();
    await server.close();
  });
  const get = async (url: string) => {
    const r = await request(url);
    return { status: r.statusCode, type: String(r.headers['content-type']), text: await r.body.text() };
  };
  const open = async (values: WebUiValues) => {
    const built = buildWebUiUrl(template, values);
    assert.ok(built.ok, built.ok ? '' : built.reason);
    return { url: built.url, ...(await get(built.url)) };
  };

  it("the demo's settings name the service, its project and the web UI pages of the same service", () => {
    const settings = demoSettings(server.url);
    assert.equal(settings['svc.baseUrl'], server.url);
    assert.equal(settings['svc.project'], 'demo-entity/chatbot');
    assert.equal(settings[WEB_UI_SETTING], webUiTemplate(server.url));
    assert.equal(settings[WEB_UI_SETTING], `${server.url}/ui/{entity}/{project}/threads/{threadId}?call={callId}`);
  });

  it('every Open in Web UI link the extension builds for the demo data answers 200 with the thread or call it names', async () => {
    const data = JSON.parse(fs.readFileSync(fixture, 'utf8')) as { projects: Record<string, unknown> };
    let links = 0;
    for (const project of Object.keys(data.projects)) {
      for await (const rows of client.threads.queryBatches({ project_id: project })) {
        for (const row of rows) {
          // A thread row of the Threads view and the details' thread button: the thread, its last turn as the call.
          const thread = await open(threadValues(project, row.thread_id, row.last_turn_id));
          assert.equal(thread.status, 200, thread.url);
          assert.match(thread.type, /^text\/html/);
          assert.ok(thread.text.includes(`Thread ${row.thread_id}`), thread.url);
          assert.ok(thread.text.includes(`Call ${row.last_turn_id}`), thread.url);
          // The details' first and last turn buttons: the turn's call ref, with the thread.
          for (const turn of [row.first_turn_id, row.last_turn_id]) {
            const r = await open(refValues(`svc:///${project}/call/${turn}`, row.thread_id));
            assert.equal(r.status, 200, r.url);
            assert.ok(r.text.includes(`Call ${turn}`), r.url);
          }
          links += 3;
        }
      }
    }
    assert.ok(links > 800, `${links} links`);
    // The refs of the demo's notes.md (a hover's Open in Web UI: a call ref, no thread).
    const refs = recentTurnRefs(data, 3);
    assert.equal(refs.length, 3);
    for (const { ref } of refs) {
      const r = await open(refValues(ref));
      assert.equal(r.status, 200, r.url);
      assert.ok(r.text.includes(`Call ${parseRef(ref).ok && (parseRef(ref) as { ref: { callId: string } }).ref.callId}`), r.url);
    }
    // An object or op ref names only its project.
    const project = await open(refValues('svc:///demo-entity/chatbot/object/model:abc123'));
    assert.equal(project.status, 200, project.url);
    assert.match(project.text, /Project demo-entity\/chatbot/);
  });

  it('a thread, call or project the service does not have is a 404 page that names it', async () => {
    const thread = await open(threadValues('demo-entity/chatbot', 'no-such-thread'));
    assert.equal(thread.status, 404);
    assert.match(thread.text, /No thread no-such-thread in project demo-entity\/chatbot/);
    const call = await open({ entity: 'demo-entity', project: 'chatbot', callId: 'no-such-call' });
    assert.equal(call.status, 404);
    assert.match(call.text, /No call no-such-call in project demo-entity\/chatbot/);
    const project = await open({ entity: 'nobody', project: 'nothing' });
    assert.equal(project.status, 404);
    assert.match(project.text, /No project nobody\/nothing/);
  });

  it('shows what the store holds as escaped text: a call named <script> is text on the page', async () => {
    server.addCalls('demo-entity/chatbot', [{ id: 'x-call', op_name: '<script>alert(1)</script>', thread_id: 't<&>"\'', turn_id: 'x-call', started_at: '2026-11-27T10:00:00Z', inputs: { message: '<img src=x onerror=alert(1)>' } }]);
    const r = await open(threadValues('demo-entity/chatbot', 't<&>"\'', 'x-call'));
    assert.equal(r.status, 200, r.url);
    assert.ok(!r.text.includes('<script>alert') && !r.text.includes('<img'), 'no markup from the store');
    assert.ok(r.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(r.text.includes('Thread t&lt;&amp;&gt;&quot;&#39;'));
    server.reset();
  });

  it('without the webUi option there are no /ui/ pages (the service contract has none)', async () => {
    const plain = await startReferenceServer({ fixture });
    try {
      const r = await get(`${plain.url}/ui/demo-entity/chatbot/threads/`);
      assert.equal(r.status, 404);
      assert.match(r.type, /application\/json/);
    } finally {
      await plain.close();
    }
  });
});
