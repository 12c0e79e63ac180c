/**
 * The pool worker script of napi programs: the runtime's pool worker (pool-worker.ts) whose
 * instances are made by emnapi (napi/thread.ts). Node starts it from `WorkerInit.workerScript`;
 * browsers through the owner's `browserPlatformWith` (napi/browser.ts), so bundlers see it.
 */
import { bootPoolWorker } from '../pool-worker.js';
import { importEmnapi } from './emnapi.js';
import { napiThreadHooks, type NapiEmbed } from './thread.js';

void bootPoolWorker(async (init) => {
  const embed = init.embed as NapiEmbed;
  return napiThreadHooks(await importEmnapi(embed.urls), embed);
});
