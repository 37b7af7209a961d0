// The sample files of the demo workspace (`npm run demo`, and UI tests that follow the demo):
// a good and a bad trajectory file, a rich one for the viewer (scripts/demo-rich-trajectories.js), a calls file, and notes with call refs taken from the demo
// data, so every journey of the README can be tried at once.
//
//   const { writeDemoWorkspace } = require('./demo-workspace');
//   const files = writeDemoWorkspace(dir, { fixture: 'test/fixtures/demo.json', serviceUrl });
//   // files: [{ name, what }], in the order to try them
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { writeArtHistory } = require('./demo-art-history');

const PROJECT = 'demo-entity/chatbot';
const MODEL = 'demo-model-7b';
const { writeArtSteps } = require('./demo-art-steps');
const { writeArtRun } = require('./demo-art-run');
const { richGroups, RICH_FILE } = require('./demo-rich-trajectories');
const { writeHarborDemo } = require('./demo-harbor');

/** One trajectory group as the official training client writes it (model_dump(mode="json"), trimmed). */
function group(question, answer, reward) {
  return {
    trajectories: [
      {
        messages_and_choices: [
          { role: 'system', content: 'You are a helpful support assistant.' },
          { role: 'user', content: question },
          { finish_reason: 'stop', index: 0, logprobs: null, message: { role: 'assistant', content: answer, refusal: null, tool_calls: null } },
        ],
        tools: null,
        reward,
        metrics: { duration: 1.2 },
        metadata: {},
        logs: [],
        initial_policy_version: null,
        final_policy_version: null,
      },
    ],
    exceptions: [],
    metadata: {},
    metrics: {},
    logs: [],
  };
}

/** The latest turn of each of the most recently active threads of the demo project: real refs to attach feedback to. */
function recentTurnRefs(fixture, count) {
  const calls = fixture.projects?.[PROJECT]?.calls ?? [];
  const seen = new Set();
  const refs = [];
  const turns = calls.filter((c) => c.turn_id === c.id && c.thread_id).sort((a, b) => (a.started_at < b.started_at ? 1 : -1));
  for (const c of turns) {
    if (seen.has(c.thread_id)) continue;
    seen.add(c.thread_id);
    refs.push({ ref: `svc:///${PROJECT}/call/${c.id}`, thread: c.thread_id, question: c.inputs?.message ?? c.op_name });
    if (refs.length === count) break;
  }
  return refs;
}

/**
 * Writes the sample files into `dir`; returns their names and what to do with each.
 * @param {string} dir
 * @param {{ fixture: string, serviceUrl?: string }} options
 */
function writeDemoWorkspace(dir, options) {
  const fixture = JSON.parse(fs.readFileSync(options.fixture, 'utf8'));
  fs.mkdirSync(dir, { recursive: true });
  const write = (name, text) => fs.writeFileSync(path.join(dir, name), text);
  const files = [];

  const good = [
    group('How do I reset my password?', 'Open Settings, then Security, then Reset password.', 0.9),
    group('What is the refund policy?', 'Refunds within 30 days, no questions asked.', 0.75),
    group('Translate "good morning" to French', 'Bonjour.', 1),
  ];
  write('rollouts.jsonl', good.map((g) => JSON.stringify(g)).join('\n') + '\n');
  files.push({ name: 'rollouts.jsonl', what: `a good trajectory file: its Upload Trajectories button (editor title) logs 3 groups to ${MODEL}` });

  const rich = richGroups();
  write(RICH_FILE, rich.map((g) => JSON.stringify(g)).join('\n') + '\n');
  files.push({
    name: RICH_FILE,
    what:
      `a GRPO step of a tool-using support agent (${rich.length} groups of 4 to 6 rollouts): it opens in the Trajectory Viewer. ` +
      'Group 1 calls two tools at once and gets the results back out of order (each call links to its result), with the model\'s reasoning; ' +
      'group 2 holds a long policy message (Show all); group 3 has no learning signal (every reward equal); group 4 has rollouts that raised. ' +
      'Sort by reward, press / to search (try "Lyon"), and Compare with… to diff two rollouts',
  });

  // Line 2: an unknown role and a reward that is not a number. Line 4: captured exchanges beside
  // messages_and_choices (the training client refuses a trajectory holding both).
  const bad2 = group('Summarise this article', 'It says three things.', 0.5);
  bad2.trajectories[0].messages_and_choices[1].role = 'robot';
  bad2.trajectories[0].reward = 'high';
  const bad4 = group('Why did my build fail?', 'A missing dependency.', 0.25);
  bad4.trajectories[0].exchanges = {
    chat_completions: [
      {
        request: { model: MODEL, messages: [{ role: 'user', content: 'Why did my build fail?' }] },
        response: { id: 'chatcmpl-1', object: 'chat.completion', created: 1767225600, model: MODEL, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'A missing dependency.' } }], usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } },
        model: MODEL,
        start_time: '2026-01-01T10:00:00',
        end_time: '2026-01-01T10:00:01.5',
      },
    ],
  };
  write(
    'rollouts-with-mistakes.jsonl',
    [good[0], bad2, good[1], bad4].map((g) => JSON.stringify(g)).join('\n') + '\n',
  );
  files.push({ name: 'rollouts-with-mistakes.jsonl', what: 'a trajectory file with 3 mistakes (lines 2 and 4): the upload lists them in Problems and sends nothing' });

  const steps = writeArtSteps(dir);
  files.push({ name: steps[0], what: `an ART step file (Parquet, as ART writes them now; ${steps.length} step files under trajectories/): it opens in the Trajectory Viewer, legacy and exchange trajectories, an empty group with an exception in step 3` });

  const job = writeHarborDemo(dir);
  files.push({ name: job.split(path.sep).join('/'), what: 'a Harbor job (ATIF trajectories of 4 trials, 2 tasks, their verifier rewards): Open Harbor Job in Trajectory Viewer (explorer context menu on the folder) reads them as conversations; Convert to ART Trajectories… writes them as an uploadable file' });

  // An Inspect AI log, written by Python's zipfile and the zstd tool (test/fixtures/inspect/write_eval.py).
  fs.mkdirSync(path.join(dir, 'inspect'), { recursive: true });
  fs.copyFileSync(path.join(__dirname, '..', 'test', 'fixtures', 'inspect', 'demo.eval'), path.join(dir, 'inspect', 'arith.eval'));
  files.push({ name: 'inspect/arith.eval', what: 'an Inspect AI log (.eval): it opens in the Trajectory Viewer, a group per sample with its 3 epochs, scores as rewards and metrics, tool calls and reasoning; sample 5 ended in an error' });

  // Two turns of a new thread, as a tracing SDK writes them (start and end records).
  const now = Date.parse(fixture.now ?? '2026-11-20T12:00:00.000Z');
  const at = (s) => new Date(now - s * 1000).toISOString();
  const records = [];
  [
    ['demo-import-turn-1', 'Can I change my delivery address?', 'Yes, until the parcel ships.', 600],
    ['demo-import-turn-2', 'It shipped yesterday.', 'Then the carrier can redirect it: here is how.', 300],
  ].forEach(([id, q, a, ago]) => {
    records.push({ start: { project_id: PROJECT, id, trace_id: id, op_name: 'chat_turn', started_at: at(ago), attributes: {}, inputs: { message: q }, thread_id: 'demo-imported-thread', turn_id: id, parent_id: null } });
    records.push({ end: { project_id: PROJECT, id, ended_at: at(ago - 2.4), summary: {}, output: { reply: a }, exception: null } });
  });
  write('calls.jsonl', records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  files.push({ name: 'calls.jsonl', what: 'traced calls: Import Calls (explorer context menu) adds thread demo-imported-thread to the Threads view' });

  const history = writeArtHistory(dir);
  files.push({ name: history, what: 'the metrics of a 50-step training run as ART writes them: Open Training Dashboard (explorer context menu, also on the agent-7b folder) charts them' });

  const long = writeArtRun(dir);
  files.push({
    name: long.history,
    what: `a longer run (${long.steps.train} train and ${long.steps.val} val step files, the first two as older ART's JSONL): in a step file, "Follow scenario across steps" on a trajectory (or svc: Follow Scenario Across Steps… in the palette) lines up its rewards and answers step by step and marks where the answer changed`,
  });

  const refs = recentTurnRefs(fixture, 3);
  const notes = [
    '# Review notes',
    '',
    `Call refs from the demo data (project ${PROJECT}). Ctrl+click a ref to attach feedback to that call;`,
    'hover one to see its parts.',
    '',
    ...refs.map((r) => `- Thread ${r.thread}, "${r.question}": ${r.ref}`),
    '',
  ].join('\n');
  write('notes.md', notes);
  files.push({ name: 'notes.md', what: `${refs.length} call refs from the demo data: Ctrl+click one to attach feedback` });

  const readme = [
    '# svc demo workspace',
    '',
    `Open the svc view in the activity bar.${options.serviceUrl ? ` The reference service runs at ${options.serviceUrl} (API key: demo-key).` : ''}`,
    '',
    'Sign in first: the Threads view offers **Sign In**; choose *Paste an API key* and enter `demo-key`.',
    'The key goes to VS Code\'s SecretStorage, as yours would: **svc: Sign Out** (palette) signs you out, and the views show the signed-out welcome again.',
    '',
    'Sample files to try:',
    '',
    ...files.map((f) => `- \`${f.name}\`: ${f.what}.`),
    '',
    'The service keeps what you send in memory: it is gone when `npm run demo` stops.',
    '',
  ].join('\n');
  write('README.md', readme);
  return files;
}

/**
 * The settings the demo's VS Code starts with (scripts/demo.js), for the reference service at
 * `serviceUrl`. svc.webUiUrl: the service's stand-in web UI pages (test/server/webUi.ts, on with
 * the service's --web-ui), so every Open in Web UI of the tour opens a page of the demo's data.
 */
function demoSettings(serviceUrl) {
  return {
    'svc.baseUrl': serviceUrl,
    'svc.project': PROJECT,
    'svc.models': [MODEL, 'demo-model-70b'],
    'svc.webUiUrl': `${serviceUrl}/ui/{entity}/{project}/threads/{threadId}?call={callId}`,
  };
}

module.exports = { writeDemoWorkspace, recentTurnRefs, demoSettings, DEMO_PROJECT: PROJECT, DEMO_MODEL: MODEL };
