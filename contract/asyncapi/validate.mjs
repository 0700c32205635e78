// Parses each AsyncAPI document named on the command line and prints its
// diagnostics, then "<file>: valid" or "<file>: invalid" (any error, or no
// document at all).
import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';

const parser = new Parser();
for (const file of process.argv.slice(2)) {
  const { document, diagnostics } = await parser.parse(readFileSync(file, 'utf8'), { source: file });
  let failed = !document;
  for (const d of diagnostics) {
    const where = (d.path || []).join('/');
    console.log(`${['error', 'warning', 'info', 'hint'][d.severity] ?? d.severity} ${d.code} ${where}: ${d.message}`);
    if (d.severity === 0) failed = true;
  }
  console.log(`${file}: ${failed ? 'invalid' : 'valid'}`);
}
