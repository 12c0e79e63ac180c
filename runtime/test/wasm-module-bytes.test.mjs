// The small modules of runtime/src/wasm-module-bytes.ts: the same bytes as before they were written
// there (the literals of wait-hook.ts and host-worker.ts, and jspi.ts's modules as 2d89541 built
// them: captured on Node 22 with --experimental-wasm-jspi), the shapes its file comment states,
// and what instantiating them does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compiledOnce, funcrefModule, sleb, suspenderScopeModule, suspenderWrapperModule, uleb } from '../dist/wasm-module-bytes.js';

const hex = (bytes) => Buffer.from(bytes).toString('hex');

// wait-hook.ts's TRAMPOLINES and host-worker.ts's YIELD_TRAMPOLINE at 2d89541.
const WAIT_TRAMPOLINES = '0061736d01000000' + '010f0260037f7f7e017f60037f7e7e017f'
  + '02110201680377333200000168037736340001' + '070d02037733320000037736340001';
const YIELD_TRAMPOLINE = '0061736d01000000' + '01040160000002070101680179000007050101790000';
// jspi.ts's SCOPE and wrapperModule(sig) at 2d89541.
const SCOPE = '0061736d01000000010c0260036f7f7f0060027f7f00030201000404017000010606016f01d06f0b07110305656e7465720000017303'
  + '00017401000a11010f00200024002001200241001101000b0027046e616d650008077370696e646c650116010013686f737465645f7468726561645f656e747279';
const WRAPPERS = [
  [[['i32', 'i32', 'i64'], ['i32']], '0061736d0100000001110260037f7f7e017f60056f7f7f7f7e017f02160301680173036f010168026964037f0001680166000103020100070501017700010a10010e002300230120002001200210000b'],
  [[['i32', 'i64', 'i64'], ['i32']], '0061736d0100000001110260037f7e7e017f60056f7f7f7e7e017f02160301680173036f010168026964037f0001680166000103020100070501017700010a10010e002300230120002001200210000b'],
  [[[], []], '0061736d0100000001090260000060026f7f0002160301680173036f010168026964037f0001680166000103020100070501017700010a0a0108002300230110000b'],
  [[['i32', 'i32', 'i32', 'i32'], ['i32']], '0061736d0100000001130260047f7f7f7f017f60066f7f7f7f7f7f017f02160301680173036f010168026964037f0001680166000103020100070501017700010a1201100023002301200020012002200310000b'],
  [[[], ['i32']], '0061736d01000000010b026000017f60026f7f017f02160301680173036f010168026964037f0001680166000103020100070501017700010a0a0108002300230110000b'],
  [[['f32', 'f64'], ['i64']], '0061736d01000000010f0260027d7c017e60046f7f7d7c017e02160301680173036f010168026964037f0001680166000103020100070501017700010a0e010c00230023012000200110000b'],
];

const WAIT_FNS = [['w32', [['i32', 'i32', 'i64'], ['i32']]], ['w64', [['i32', 'i64', 'i64'], ['i32']]]];

describe('wasm-module-bytes: the same bytes as the literals they replaced', () => {
  test('the wait hook\'s trampolines (wait-hook.ts)', () => {
    assert.equal(hex(funcrefModule(WAIT_FNS)), WAIT_TRAMPOLINES);
  });

  test('the yield trampoline (host-worker.ts)', () => {
    assert.equal(hex(funcrefModule([['y', [[], []]]])), YIELD_TRAMPOLINE);
  });

  test('the earlier JSPI\'s scope and wrappers (jspi.ts)', () => {
    assert.equal(hex(suspenderScopeModule()), SCOPE);
    for (const [sig, bytes] of WRAPPERS) assert.equal(hex(suspenderWrapperModule(sig)), bytes, JSON.stringify(sig));
  });
});

describe('wasm-module-bytes: shapes', () => {
  test('funcrefModule: function i is h.<name>, exported as <name>, and calls the JS function', () => {
    const module = new WebAssembly.Module(funcrefModule([...WAIT_FNS, ['y', [[], []]], ['f', [['f32', 'f64'], ['i64']]]]));
    assert.deepEqual(WebAssembly.Module.imports(module), ['w32', 'w64', 'y', 'f'].map((name) => ({ module: 'h', name, kind: 'function' })));
    assert.deepEqual(WebAssembly.Module.exports(module), ['w32', 'w64', 'y', 'f'].map((name) => ({ name, kind: 'function' })));
    const calls = [];
    const { exports } = new WebAssembly.Instance(module, {
      h: {
        w32: (...a) => { calls.push(['w32', ...a]); return 2; },
        w64: (...a) => { calls.push(['w64', ...a]); return 1; },
        y: (...a) => { calls.push(['y', ...a]); },
        f: (...a) => { calls.push(['f', ...a]); return 7n; },
      },
    });
    // The exports are wasm functions of the declared types: a funcref table takes them.
    const table = new WebAssembly.Table({ element: 'anyfunc', initial: 4 });
    for (const [i, name] of ['w32', 'w64', 'y', 'f'].entries()) table.set(i, exports[name]);
    assert.equal(table.get(0)(-4, 5, 6n), 2);
    assert.equal(table.get(1)(8, 9n, -1n), 1);
    assert.equal(table.get(2)(), undefined);
    assert.equal(table.get(3)(1.5, 2.25), 7n);
    assert.deepEqual(calls, [['w32', -4, 5, 6n], ['w64', 8, 9n, -1n], ['y'], ['f', 1.5, 2.25]]);
  });

  test('suspenderScopeModule: enter stores its first argument in s and calls t[0](a, b)', () => {
    const { enter, s, t } = new WebAssembly.Instance(new WebAssembly.Module(suspenderScopeModule())).exports;
    assert.ok(s instanceof WebAssembly.Global && t instanceof WebAssembly.Table && t.length === 1);
    const seen = [];
    const start = new WebAssembly.Instance(new WebAssembly.Module(funcrefModule([['start', [['i32', 'i32'], []]]])), {
      h: { start: (a, b) => { seen.push([a, b]); } },
    }).exports.start;
    t.set(0, start);
    const token = { suspender: true };
    enter(token, 3, 4);
    assert.equal(s.value, token);
    assert.deepEqual(seen, [[3, 4]]);
  });

  test('suspenderWrapperModule: w passes s and id first, then its own parameters, and returns f\'s result', () => {
    const token = {};
    const s = new WebAssembly.Global({ value: 'externref', mutable: true }, token);
    const id = new WebAssembly.Global({ value: 'i32', mutable: false }, 41);
    const seen = [];
    const module = new WebAssembly.Module(suspenderWrapperModule([['i32', 'i64'], ['f64']]));
    assert.deepEqual(WebAssembly.Module.exports(module), [{ name: 'w', kind: 'function' }]);
    const { w } = new WebAssembly.Instance(module, { h: { s, id, f: (...a) => { seen.push(a); return 0.5; } } }).exports;
    assert.equal(w(-2, 3n), 0.5);
    assert.deepEqual(seen, [[token, 41, -2, 3n]]);
  });

  test('compiledOnce compiles at the first call, once', () => {
    let builds = 0;
    const get = compiledOnce(() => { builds++; return funcrefModule([['y', [[], []]]]); });
    assert.equal(builds, 0);
    const first = get();
    assert.ok(first instanceof WebAssembly.Module);
    assert.equal(get(), first);
    assert.equal(builds, 1);
  });

  test('LEB128', () => {
    assert.deepEqual(uleb(0), [0]);
    assert.deepEqual(uleb(127), [0x7f]);
    assert.deepEqual(uleb(128), [0x80, 0x01]);
    assert.deepEqual(uleb(2 ** 32 - 1), [0xff, 0xff, 0xff, 0xff, 0x0f]);
    assert.deepEqual(sleb(-1n), [0x7f]);
    assert.deepEqual(sleb(63n), [0x3f]);
    assert.deepEqual(sleb(64n), [0xc0, 0x00]);
    assert.deepEqual(sleb(-65n), [0xbf, 0x7f]);
  });
});
