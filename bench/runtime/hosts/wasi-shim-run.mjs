#!/usr/bin/env node
/**
 * A wasm32-wasip1(-threads) program on @bjorn3/browser_wasi_shim, its files in the shim's
 * in-memory PreopenDirectory mounted at /tmp: the fs experiment's browser_wasi_shim peer. The
 * shim has no threads (thread-spawn fails with -1), so the program runs on the JS main thread only.
 *
 *   node wasi-shim-run.mjs PROGRAM.wasm [ARGS...]
 *
 * stdout/stderr are the shim's ConsoleStdout, line-buffered to the process's streams. The shim
 * reads `instance.exports.memory`; a program that imports its (shared) memory gets it that way.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { ConsoleStdout, File, OpenFile, PreopenDirectory, WASI } from '@bjorn3/browser_wasi_shim';
import { createImportedMemory } from './memory-import.mjs';

const [file, ...args] = process.argv.slice(2);
if (!file) { console.error('usage: wasi-shim-run.mjs PROGRAM.wasm [ARGS...]'); process.exit(2); }

const fds = [
  new OpenFile(new File([])),
  ConsoleStdout.lineBuffered((line) => process.stdout.write(`${line}\n`)),
  ConsoleStdout.lineBuffered((line) => process.stderr.write(`${line}\n`)),
  new PreopenDirectory('/tmp', new Map()),
];
// debug: false, or the shim logs every path to the console (its default is true).
const wasi = new WASI([basename(file), ...args], [], fds, { debug: false });
const bytes = readFileSync(file);
const { memory, imp } = createImportedMemory(bytes);
const imports = { wasi_snapshot_preview1: wasi.wasiImport, wasi: { 'thread-spawn': () => -1 } };
if (imp) imports[imp.module] = { [imp.name]: memory };
const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), imports);
const code = wasi.start({ exports: { memory: memory ?? instance.exports.memory, _start: instance.exports._start } });
process.exitCode = code;
