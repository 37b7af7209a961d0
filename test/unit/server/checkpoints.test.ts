import assert from 'node:assert/strict';
import { getJson, useServer } from './helpers';

const MODEL = 'my model/v1'; // a space and a slash: both must survive percent-encoding
const path = (query = '') => `/v1/preview/models/${encodeURIComponent(MODEL)}/checkpoints${query}`;

describe('reference server: GET /v1/preview/models/{model_id}/checkpoints', () => {
  const server = useServer();
  beforeEach(() => server().addCheckpoints(MODEL, 45));
  const steps = (body: { data: { step: number }[] }) => body.data.map((c) => c.step);

  it('answers the list envelope, ascending by step, 20 items by default', async () => {
    const res = await getJson(server(), path());
    assert.equal(res.status, 200);
    assert.equal(res.body.object, 'list');
    assert.equal(res.body.data.length, 20);
    assert.deepEqual(steps(res.body).slice(0, 3), [10, 20, 30]);
    assert.equal(res.body.first_id, res.body.data[0].id);
    assert.equal(res.body.last_id, res.body.data[19].id);
    assert.equal(res.body.has_more, true);
    const [first] = res.body.data;
    assert.deepEqual(Object.keys(first).sort(), ['id', 'metrics', 'step']);
    assert.match(first.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const v of Object.values(first.metrics)) assert.equal(typeof v, 'number');
  });

  for (const order of ['asc', 'desc'] as const) {
    it(`pages with the after cursor until has_more is false (order=${order})`, async () => {
      const seen: number[] = [];
      let after = '';
      for (let page = 0; page < 10; page++) {
        const res = await getJson(server(), path(`?order=${order}&limit=20${after ? `&after=${after}` : ''}`));
        assert.equal(res.status, 200);
        seen.push(...steps(res.body));
        if (!res.body.has_more) break;
        after = res.body.last_id;
      }
      const expected = Array.from({ length: 45 }, (_, i) => (i + 1) * 10);
      assert.deepEqual(seen, order === 'asc' ? expected : expected.reverse());
    });
  }

  it('gives the latest checkpoint with order=desc&limit=1', async () => {
    const res = await getJson(server(), path('?order=desc&limit=1'));
    assert.deepEqual(steps(res.body), [450]);
    assert.equal(res.body.has_more, true);
  });

  it('answers an empty page with empty first_id/last_id after the last item', async () => {
    const last = (await getJson(server(), path('?order=desc&limit=1'))).body.last_id;
    const res = await getJson(server(), path(`?after=${last}`));
    assert.deepEqual(res.body, { object: 'list', data: [], first_id: '', last_id: '', has_more: false });
  });

  it('answers 404 {"detail":"Model not found"} for an unknown model', async () => {
    const res = await getJson(server(), '/v1/preview/models/nobody/checkpoints');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'Model not found' });
  });

  const invalid: [string, string, string][] = [
    ['limit=0', '?limit=0', 'limit'],
    ['limit=101', '?limit=101', 'limit'],
    ['limit=abc', '?limit=abc', 'limit'],
    ['limit=2.5', '?limit=2.5', 'limit'],
    ['order=ASC', '?order=ASC', 'order'],
    ['an after cursor that is not a checkpoint of the model', '?after=0f8fad5b-d9cb-469f-a165-70867728950e', 'after'],
    ['an unknown query parameter', '?cursor=x', 'cursor'],
  ];
  for (const [what, query, param] of invalid) {
    it(`answers 422 with loc ["query","${param}"] for ${what}`, async () => {
      const res = await getJson(server(), path(query));
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.detail.map((d: { loc: unknown[] }) => d.loc), [['query', param]]);
    });
  }

  it('accepts limit=1 and limit=100', async () => {
    assert.equal((await getJson(server(), path('?limit=1'))).body.data.length, 1);
    assert.equal((await getJson(server(), path('?limit=100'))).body.data.length, 45);
  });
});
