  if (process.env.SPINDLE_REC) {
    const fsm = require('node:fs');
    const td = new TextDecoder();
    const s = (p, l) => td.decode(new Uint8Array(host.memory.buffer).slice(p >>> 0, (p >>> 0) + (l >>> 0)));
    const wt = require('node:worker_threads');
    for (const name of Object.keys(imports2)) {
      const f = imports2[name];
      if (!/^(path_|fd_)/.test(name)) continue;
      imports2[name] = (...a) => {
        const r = f(...a);
        let info = a.map(x => typeof x === 'bigint' ? String(x) : x);
        if (name === 'path_filestat_get') info = [a[0], a[1], s(a[2], a[3])];
        else if (name === 'path_open') info = [a[0], a[1], s(a[2], a[3]), a[4], String(a[5]), String(a[6]), a[7], r === 0 ? new DataView(host.memory.buffer).getUint32(a[8], true) : -1];
        else if (name === 'fd_read') { const dv = new DataView(host.memory.buffer); const lens = []; for (let i = 0; i < a[2]; i++) lens.push(dv.getUint32(a[1] + 8 * i + 4, true)); info = [a[0], lens, r === 0 ? dv.getUint32(a[3], true) : -1]; }
        fsm.appendFileSync(process.env.SPINDLE_REC, JSON.stringify([wt.threadId, name, info, r]) + '\n');
        return r;
      };
    }
  }
