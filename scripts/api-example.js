#!/usr/bin/env node
// A plain Node program that drives every endpoint through the built service client
// (out/api/index.js, built by `npm run build`). No VS Code involved.
//
//   npm run serve -- --port 8787 --data test/fixtures/demo.json     (in another terminal)
//   node scripts/api-example.js --url http://127.0.0.1:8787 --key demo-key
'use strict';
const { randomUUID } = require('node:crypto');
const api = require('../out/api/index.js');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

async function main() {
  const url = arg('url', 'http://127.0.0.1:8787');
  const key = arg('key', process.env.SVC_API_KEY || 'demo-key');
  const project = arg('project', 'demo-entity/chatbot');
  const model = arg('model', 'demo-model-7b');
  const client = api.createServiceClient({
    traceBaseUrl: url,
    credentials: async () => ({ username: 'api', password: key, accessToken: key }),
    logger: (e) => console.error(`  [http] ${e.method} ${e.path} -> ${e.status ?? e.error} (${e.durationMs} ms, attempt ${e.attempt})`),
  });
  try {
    // 1. POST /call/upsert_batch: a thread with one finished turn.
    const callId = randomUUID();
    const threadId = `example-${callId.slice(0, 8)}`;
    const now = new Date();
    const results = await client.calls.upsertBatch([
      { mode: 'start', req: { start: { project_id: project, op_name: 'example.turn', started_at: now.toISOString(), attributes: {}, inputs: { q: 'hello' }, id: callId, thread_id: threadId, turn_id: callId } } },
      { mode: 'end', req: { end: { project_id: project, id: callId, ended_at: new Date(now.getTime() + 1234).toISOString(), summary: {}, output: { a: 'hi' } } } },
    ]);
    console.log('upsert_batch:', JSON.stringify(results));

    // 2. POST /threads/stream_query: the new thread, then the three latest.
    for await (const row of client.threads.query({ project_id: project, filter: { thread_ids: [threadId] } })) {
      console.log('thread:', row.thread_id, 'turns', row.turn_count, 'p50', row.p50_turn_duration_ms);
    }
    let n = 0;
    for await (const row of client.threads.query({ project_id: project, limit: 3, sort_by: [{ field: 'last_updated', direction: 'desc' }] })) {
      console.log(`latest thread ${++n}:`, row.thread_id, row.last_updated);
    }

    // 3. POST /feedback/create on the turn call.
    const fb = await client.feedback.create({
      project_id: project,
      svc_ref: api.callRef(project, callId),
      feedback_type: 'svc.note.1',
      payload: { note: 'written by scripts/api-example.js' },
    });
    console.log('feedback:', fb.id, fb.created_at, fb.svc_user_id);

    // 4. POST /v1/preview/models/{id}/log.
    const logged = await client.models.logTrajectories(model, {
      split: 'val',
      trajectory_groups: [{ trajectories: [{ messages_and_choices: [{ role: 'user', content: '2+2?' }, { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: '4' } }], reward: 1 }] }],
    });
    console.log('log:', JSON.stringify(logged));

    // 5. GET /v1/preview/models/{id}/checkpoints: the latest, then all of them.
    const latest = await client.models.listCheckpoints(model, { order: 'desc', limit: 1 });
    console.log('latest checkpoint:', latest.data[0]?.step, JSON.stringify(latest.data[0]?.metrics));
    let count = 0;
    for await (const _ of client.models.checkpoints(model, { pageSize: 100 })) count++;
    console.log('checkpoints:', count);
  } catch (e) {
    console.error(`${e.name}: ${e.message}`);
    process.exitCode = 1;
  } finally {
    await client.close();
  }
}
main();
