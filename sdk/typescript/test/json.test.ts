// quoteNumbers: the numbers chosen by path become strings of their exact
// text; nothing else in the JSON changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quoteNumbers } from '../src/json.js';

const byKey = (...keys: string[]) => (path: readonly string[]) => keys.includes(path[path.length - 1] ?? '');

test('quotes the chosen numbers with their digits', () => {
  const text = '{"Amount": 123456789012.34, "Count": 3, "Items": [{"Amount": -0.5}, {"Amount": 1e2}], "Rate": {"Amount": 7}}';
  assert.deepEqual(JSON.parse(quoteNumbers(text, byKey('Amount'))), {
    Amount: '123456789012.34', Count: 3, Items: [{ Amount: '-0.5' }, { Amount: '1e2' }], Rate: { Amount: '7' },
  });
});

test('an object or null under a chosen key stays as it is', () => {
  const text = '{"Amount": {"Amount": 1.10}, "Weight": null, "Rate": true}';
  assert.deepEqual(JSON.parse(quoteNumbers(text, byKey('Amount', 'Weight', 'Rate'))), { Amount: { Amount: '1.10' }, Weight: null, Rate: true });
});

test('strings that look like numbers or hold quotes are not touched', () => {
  const text = '{"Amount": "12.5", "Note": "say \\"Amount\\": 3", "Amount\\u0021": 4}';
  assert.deepEqual(JSON.parse(quoteNumbers(text, byKey('Amount', 'Amount!'))), { Amount: '12.5', Note: 'say "Amount": 3', 'Amount!': '4' });
});

test('paths follow nesting and leave list indices out', () => {
  const text = '{"data": {"loads": {"items": [{"rate": {"amount": 10.25}, "weight": 2}], "totalCount": 5}}}';
  const keep = (path: readonly string[]) => ['data.loads.items.rate.amount', 'data.loads.items.weight'].includes(path.join('.'));
  assert.deepEqual(JSON.parse(quoteNumbers(text, keep)), { data: { loads: { items: [{ rate: { amount: '10.25' }, weight: '2' }], totalCount: 5 } } });
});

test('invalid JSON is refused', () => {
  for (const bad of ['{"a": 1', '{"a" 1}', '[1,]x', '']) assert.throws(() => quoteNumbers(bad, () => true), SyntaxError, bad);
});
