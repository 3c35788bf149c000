// `node --import ./module-recorder.mjs`: appends the URL of every ES module the process resolves
// to the file named by RECORD_MODULES_TO (tracing.e2e-spec.ts: is the OpenTelemetry SDK loaded?).
import { register } from 'node:module';
import process from 'node:process';

register('./module-recorder-hooks.mjs', import.meta.url, { data: { file: process.env.RECORD_MODULES_TO } });
