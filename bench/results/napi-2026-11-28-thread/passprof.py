import json,sys,collections,os
# passprof.py DIR: self time per function in pass 1 (cold) and pass 3 (warm), summed over workers, per worker
d=sys.argv[1]; marks={}
for l in open(os.path.join(d,'marks.jsonl')):
    j=json.loads(l); marks[j['tid']]=j['marks']
agg=[collections.Counter() for _ in range(3)]; n=0
for f in os.listdir(d):
    if not f.endswith('.cpuprofile'): continue
    tid=int(f.split('.')[4])
    if tid not in marks: continue
    n+=1
    p=json.load(open(os.path.join(d,f))); nodes={x['id']:x for x in p['nodes']}
    t=p['startTime']
    for s,dt in zip(p['samples'],p['timeDeltas']):
        t+=dt
        for pa,a,b in marks[tid]:
            if a<=t<=b:
                cf=nodes[s]['callFrame']; fn=cf['functionName'] or '(anon)'
                agg[pa][fn+' '+cf['url'].split('/')[-1]+':'+str(cf['lineNumber'])]+=dt/1000
print(f"{n} workers; per worker: pass1 {sum(agg[0].values())/n:.1f} pass2 {sum(agg[1].values())/n:.1f} pass3 {sum(agg[2].values())/n:.1f} ms")
keys=set(agg[0])|set(agg[2])
rows=sorted(keys,key=lambda k:-(agg[0][k]-agg[2][k]))
print(" pass1  pass3  diff  function")
for k in rows[:45]: print(f"{agg[0][k]/n:6.2f} {agg[2][k]/n:6.2f} {(agg[0][k]-agg[2][k])/n:6.2f}  {k}")
print("\npass 3 top:")
for k,v in agg[2].most_common(40): print(f"{v/n:6.2f}  {k}")
