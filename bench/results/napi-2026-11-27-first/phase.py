import sys, collections
# per phase CPU per thread (tid), from TASKS lines
snaps=[]
for l in open(sys.argv[1]):
    if l.startswith('PHASE '):
        p=l.split()
        d={}
        for x in p[2:]:
            if not x: continue
            tid,comm,ms=x.rsplit(':',2)[0].split(':')[0], x.split(':')[1], float(x.rsplit(':',1)[1])
            d[tid]=(comm,ms)
        snaps.append((p[1],d))
main=min(snaps[0][1], key=int)
for (n0,a),(n1,b) in zip(snaps,snaps[1:]):
    rows=[]
    for tid,(comm,ms) in b.items():
        d=ms-a.get(tid,(comm,0))[1]
        if d>0.5: rows.append((tid,comm,d))
    tot=sum(r[2] for r in rows)
    print(f"{n0}->{n1}: total {tot:.0f}: "+' '.join(f"{'M' if t==main else t[-3:]}/{c[:6]}={d:.0f}" for t,c,d in sorted(rows,key=lambda r:-r[2])))
