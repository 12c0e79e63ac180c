// The whole integration: import from 'spindle' (the package's "browser" export) and run.
import { run } from 'spindle';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const append = (id) => {
  const decoder = new TextDecoder();
  return (bytes) => { $(id).textContent += decoder.decode(bytes, { stream: true }); };
};

try {
  const code = await run(params.get('wasm') ?? 'program.wasm', {
    args: params.get('args')?.split(',') ?? [],
    stdout: append('stdout'),
    stderr: append('stderr'),
  });
  $('exit').textContent = String(code);
  window.spindleResult = { code, stdout: $('stdout').textContent, stderr: $('stderr').textContent };
} catch (e) {
  $('exit').textContent = `${e.code}: ${e.message}`;
  window.spindleResult = { error: { code: e.code, message: e.message } };
}
