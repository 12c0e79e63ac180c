import sys
for d in sys.argv[1:]:
    p=d+'/node-worker-loader.cjs'; s=open(p).read()
    s=s.replace("'use strict';\n","'use strict';\nconst __fs=require('node:fs');globalThis.__P=[];globalThis.__p=(l)=>{__P.push([l, (process.threadCpuUsage?((u)=>(u.user+u.system)/1000)(process.threadCpuUsage()):Number(__fs.readFileSync('/proc/thread-self/schedstat','utf8').split(' ')[0])/1e6), performance.timeOrigin+performance.now()])};__p('loader');\n",1)
    s=s.replace("globalThis.require = require;","__p('compiled');globalThis.require = require;")
    open(p,'w').write(s)
    p=d+'/napi-worker.cjs'; s=open(p).read()
    a="  var require2 = (0, import_node_module3.createRequire)(__spindle_import_meta_url);"
    if a not in s: a="  var require2 = (0, import_node_module4.createRequire)(__spindle_import_meta_url);"
    assert a in s
    s=s.replace(a,"  __p('modinit');\n"+a,1)
    a="""    const factory = new ThreadFactory(init2, platform, stdio, hooks);"""
    assert a in s
    s=s.replace(a,"""    __p('emnapi+hooks');const factory = new ThreadFactory(init2, platform, stdio, hooks);""",1)
    a="""      ctl.markReady(init2.slot, warm);
      if (!first) {"""
    assert a in s
    s=s.replace(a,"""      if(first){__p('inst');require('node:fs').writeSync(2,'BOOT '+JSON.stringify({slot:init2.slot,P:__P})+'\\n');}
"""+a,1)
    open(p,'w').write(s)
