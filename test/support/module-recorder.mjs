// `node --import ./module-recorder.mjs`: appends the file: URL of every module the process loads
// to the file named by RECORD_MODULES_TO, one a line, written before the module runs (so a module
// a response needed is in the file when the response arrives): every ES module the loader hooks
// resolve (module-recorder-hooks.mjs, on the loader's thread), and with RECORD_COMMONJS=true also
// every CommonJS file, through Module.prototype.load (on Node 20 require() does not pass the
// hooks; on later versions it may, so a file can appear twice: readers deduplicate).
// tracing.e2e-spec.ts records ES modules only; lazy-loading.e2e-spec.ts and bench/cold-start.mjs
// (the module count) record both.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const file = process.env.RECORD_MODULES_TO;
if (file) {
  register('./module-recorder-hooks.mjs', import.meta.url, { data: { file } });
}
if (file && process.env.RECORD_COMMONJS === 'true') {
  const load = Module.prototype.load;
  Module.prototype.load = function recordedLoad(filename) {
    appendFileSync(file, `${pathToFileURL(filename).href}\n`);
    return load.call(this, filename);
  };
}
