// Compiles every event JSON Schema in <schemas dir> with ajv's JSON Schema
// 2020-12 build (plus ajv-formats, which defines the formats they use),
// once with ajv's default options and once with strict: true, then
// validates each event of <events file> (a JSON array of envelopes, as the
// events API answers) against its type's schema. Prints one line per
// finding and "ok" when there is none; exits 1 otherwise.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const [schemasDir, eventsFile] = process.argv.slice(2);
let failed = false;
const fail = (msg) => { failed = true; console.log(msg); };

for (const [mode, options] of [['defaults', {}], ['strict', { strict: true }]]) {
  const validators = {};
  for (const file of readdirSync(schemasDir).sort()) {
    const ajv = new Ajv2020(options);
    addFormats(ajv);
    try {
      validators[file.replace(/\.json$/, '')] = ajv.compile(JSON.parse(readFileSync(join(schemasDir, file), 'utf8')));
      console.log(`${mode} ${file}: compiled`);
    } catch (e) {
      fail(`${mode} ${file}: does not compile: ${e.message}`);
    }
  }
  for (const event of JSON.parse(readFileSync(eventsFile, 'utf8'))) {
    const validate = validators[event.type];
    if (!validate) {
      fail(`${mode} ${event.id}: no schema for type ${event.type}`);
    } else if (!validate(event)) {
      fail(`${mode} ${event.id} (${event.type}): ${JSON.stringify(validate.errors)}`);
    } else {
      console.log(`${mode} ${event.id} (${event.type}): valid`);
    }
  }
}
console.log(failed ? 'failed' : 'ok');
process.exit(failed ? 1 : 0);
