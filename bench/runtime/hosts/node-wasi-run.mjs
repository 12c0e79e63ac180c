#!/usr/bin/env node
/**
 * node:wasi, single-threaded (it has no wasi-threads): runs a WASI command on the JS main thread.
 * A wasm32-wasip1-threads module that never spawns also runs here when its imported shared memory
 * is provided (the memory is created from the module's own import declaration).
 *
 *   node node-wasi-run.mjs PROGRAM.wasm [ARGS...]
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { WASI } from 'node:wasi';
import { createImportedMemory } from './memory-import.mjs';

const [file, ...args] = process.argv.slice(2);
const bytes = readFileSync(file);
const { memory, imp } = createImportedMemory(bytes);
const wasi = new WASI({ version: 'preview1', args: [basename(file), ...args], env: {}, returnOnExit: true });
const imports = { wasi_snapshot_preview1: wasi.wasiImport };
if (imp) imports[imp.module] = { [imp.name]: memory };
const { instance } = await WebAssembly.instantiate(bytes, imports);
process.exit(wasi.start(instance) ?? 0);
