// node bigproject.mjs DIR: the realistic rolldown project these results were measured on. The
// code moved to bench/napi/bigproject/ (the napi experiment's `--param napi.project=big`), with the
// same files, packages (this folder's package.json and package-lock.json, copied there) and
// idempotent `npm ci`.
import { resolve } from 'node:path';
import { makeBigProject } from '../../napi/bigproject/index.mjs';

console.log(makeBigProject(resolve(process.argv[2] ?? '/tmp/h52/big')));
