import json,sys,collections
from collections import OrderedDict
f=sys.argv[1]
calls=[json.loads(l) for l in open(f)]
cnt=collections.Counter((c[1], 'ok' if c[3]==0 else c[3]) for c in calls)
for k,v in sorted(cnt.items(), key=lambda x:-x[1])[:20]: print(k,v)
threads=collections.Counter(c[0] for c in calls); print('threads',threads)
paths=[c[2][2] for c in calls if c[1].startswith('path_')]
print('path calls',len(paths), 'example', paths[:3], paths[-3:])
# the key each lookup takes: parent dir prefix of plain-name paths
keys=[p.rsplit('/',1)[0] if '/' in p else '' for p in paths]
print('distinct parent prefixes', len(set(keys)))
# ancestors
anc=set()
for p in paths:
    parts=p.split('/')
    for k in range(1,len(parts)): anc.add('/'.join(parts[:k]))
print('distinct ancestor prefixes', len(anc))
# LRU simulation on parent keys (approx: key hit if cached; a miss caches all directories from the deepest cached ancestor)
def sim(cap):
    lru=OrderedDict(); hits=miss=opens=0
    for p,k in zip(paths,keys):
        if k=='' : continue
        if k in lru: hits+=1; lru.move_to_end(k); continue
        miss+=1
        parts=k.split('/')
        # deepest cached ancestor
        j=len(parts)
        while j>0 and '/'.join(parts[:j]) not in lru: j-=1
        if j>0: lru.move_to_end('/'.join(parts[:j]))
        for m in range(j+1,len(parts)+1):
            opens+=1
            lru['/'.join(parts[:m])]=1
            if len(lru)>cap: lru.popitem(last=False)
    return hits,miss,opens
for cap in [64,128,256,512,1024,4096]:
    h,m,o=sim(cap); print(cap,'hits',h,'miss',m,'hit rate %.3f'%(h/(h+m)),'dir opens',o)
