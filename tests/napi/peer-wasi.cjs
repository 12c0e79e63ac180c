// One thread's WASI instance on the stock stack (peer-stock.cjs, peer-stock-worker.mjs).
const { join } = require('node:path');

module.exports = function peerWasi(kind, sandbox) {
  if (kind === 'node') {
    const { WASI } = require('node:wasi');
    return new WASI({ version: 'preview1', preopens: { '/sandbox': sandbox } });
  }
  const { WASI } = require('node:module').createRequire(join(__dirname, 'stock', 'package.json'))('@napi-rs/wasm-runtime');
  return new WASI({ version: 'preview1', fs: require('node:fs'), preopens: { '/sandbox': sandbox } });
};
