// The drop-in with rolldown: NAPI_RS_FORCE_WASI=true makes rolldown load its wasm32-wasi binding,
// whose generated loader runs on spindle. Files are read by the addon's threads through WASI
// (the loader preopens the filesystem root, as the stock loader does).
import { rolldown } from 'rolldown';

const input = new URL('../../../tests/napi/project/src/main.ts', import.meta.url).pathname;
const bundle = await rolldown({ input, logLevel: 'silent' });
const { output } = await bundle.generate({ format: 'esm' });
await bundle.close();
for (const chunk of output) console.log(`${chunk.fileName}: ${chunk.code.length} bytes`);
