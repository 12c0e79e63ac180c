# python3 summarize.py ab.out: median (min) ns per measure, per Node line, tier and configuration;
# ratios new/old (same module, same mode) and against plain (the module as it is).
import re,sys,statistics as st,collections
d=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    m=dict(re.findall(r'(\w+)=(\S+)',l))
    if 'tail_ns' not in m: continue
    for k in ('arith_ns','mem_ns','tail_ns'): d[(m['node'],m['tier'],m['cfg'])][k].append(float(m[k]))
for node in ('26','24'):
  for tier in ('opt','default'):
    if not d[(node,tier,'plain')]['tail_ns']: continue
    print(f'node{node} {tier}: median (min) ns, runs={len(d[(node,tier,"plain")]["tail_ns"])}')
    for k in ('arith_ns','mem_ns','tail_ns'):
      p=d[(node,tier,'plain')][k]; mp=st.median(p)
      line=f'  {k:9} plain {mp:.3f} ({min(p):.3f})'
      for mode in ('guarded','hosted'):
        o,n=d[(node,tier,'old-'+mode)][k],d[(node,tier,'new-'+mode)][k]
        if not o or not n: continue
        mo,mn=st.median(o),st.median(n)
        line+=f' | {mode}: old {mo:.3f} ({min(o):.3f}) new {mn:.3f} ({min(n):.3f}) new/old {mn/mo:.2f} (min {min(n)/min(o):.2f}) new/plain {mn/mp:.2f} (min {min(n)/min(p):.2f})'
      print(line)
