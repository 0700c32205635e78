// quoteNumbers: the numbers the shape types as decimals become strings of
// their exact text; nothing else in the JSON changes, whatever its name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { link, quoteNumbers, type Shape } from '../src/json.js';
import { restShapes } from '../src/generated/decimals.js';

test('quotes the decimals of the shape with their digits', () => {
  const text = '{"Amount": 123456789012.34, "Count": 3, "Items": [{"Amount": -0.5}, {"Amount": 1e2}], "Rate": {"Amount": 7}}';
  const shape: Shape = { Amount: 'decimal', Items: { Amount: 'decimal' }, Rate: { Amount: 'decimal' } };
  assert.deepEqual(JSON.parse(quoteNumbers(text, shape)), {
    Amount: '123456789012.34', Count: 3, Items: [{ Amount: '-0.5' }, { Amount: '1e2' }], Rate: { Amount: '7' },
  });
});

test('a property name means nothing outside its place in the shape', () => {
  const text = '{"Total": {"Amount": 1.10, "Currency": 840}, "Other": {"Amount": 2.5}, "Amount": 3}';
  assert.deepEqual(JSON.parse(quoteNumbers(text, { Total: { Amount: 'decimal' } })), { Total: { Amount: '1.10', Currency: 840 }, Other: { Amount: 2.5 }, Amount: 3 });
});

test('an object or null where a decimal is expected stays as it is', () => {
  const text = '{"Amount": {"Amount": 1.10}, "Weight": null, "Rate": true}';
  assert.deepEqual(JSON.parse(quoteNumbers(text, { Amount: 'decimal', Weight: 'decimal', Rate: 'decimal' })), { Amount: { Amount: 1.1 }, Weight: null, Rate: true });
});

test('strings that look like numbers or hold quotes are not touched', () => {
  const text = '{"Amount": "12.5", "Note": "say \\"Amount\\": 3", "Amount\\u0021": 4}';
  assert.deepEqual(JSON.parse(quoteNumbers(text, { Amount: 'decimal', 'Amount!': 'decimal' })), { Amount: '12.5', Note: 'say "Amount": 3', 'Amount!': '4' });
});

test('maps, prototype names and recursive shapes', () => {
  const shapes = link({ Node: { Value: 'decimal', Children: 'Node', '*': 'decimal' } }, { root: 'Node' });
  const text = '{"Value": 1.5, "Children": [{"Value": 2.25, "Children": [{"Value": 3}]}], "x": 4.5, "constructor": 5, "__proto__": 6}';
  assert.deepEqual(JSON.parse(quoteNumbers(text, shapes.root)), JSON.parse('{"Value": "1.5", "Children": [{"Value": "2.25", "Children": [{"Value": "3"}]}], "x": "4.5", "constructor": "5", "__proto__": "6"}'));
  assert.equal(quoteNumbers('{"constructor": 1, "toString": 2}', { A: 'decimal' }), '{"constructor": 1, "toString": 2}');
});

test('the generated REST shapes follow the schemas: an invoice\'s Money amounts, not a trailer\'s integer Weight', () => {
  const invoice = '{"Number": "I-1", "Total": {"Amount": 123456789012.34, "Currency": 840}, "LineItems": [{"Amount": {"Amount": 0.10, "Currency": 840}, "Rate": {"Rate": 1.50, "Units": 2}}]}';
  assert.deepEqual(JSON.parse(quoteNumbers(invoice, restShapes['GET /api/p/v1/invoices'])), {
    Number: 'I-1', Total: { Amount: '123456789012.34', Currency: 840 }, LineItems: [{ Amount: { Amount: '0.10', Currency: 840 }, Rate: { Rate: '1.50', Units: '2' } }],
  });
  const trailers = '[{"Number": "T-1", "Capacity": {"Weight": 40000, "Pallets": 3}}]';
  assert.equal(restShapes['GET /api/p/v1/trailers'], undefined);
  assert.deepEqual(JSON.parse(quoteNumbers(trailers, restShapes['GET /api/p/v1/trailers'])), [{ Number: 'T-1', Capacity: { Weight: 40000, Pallets: 3 } }]);
});

test('invalid JSON is refused', () => {
  for (const bad of ['{"a": 1', '{"a" 1}', '[1,]x', '']) assert.throws(() => quoteNumbers(bad, 'decimal'), SyntaxError, bad);
});
