import re,sys,statistics as st,collections
d=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    m=dict(re.findall(r'(\w+)=(\S+)',l))
    for k in ('arith_ns','mem_ns','tail_ns'): d[(m['node'],m['tier'],m['cfg'])][k].append(float(m[k]))
for node in ('26','24'):
  for tier in ('opt','default'):
    print(f'node{node} {tier}: median (min) ns, n={len(d[(node,tier,"plain")]["arith_ns"])}')
    for k in ('arith_ns','mem_ns','tail_ns'):
      p,o,n=(d[(node,tier,c)][k] for c in ('plain','old','new'))
      mp,mo,mn=map(st.median,(p,o,n))
      print(f'  {k:9} plain {mp:.3f} ({min(p):.3f})  old {mo:.3f} ({min(o):.3f})  new {mn:.3f} ({min(n):.3f})  old/plain {mo/mp:.2f}  new/plain {mn/mp:.2f}  new/old {mn/mo:.3f} (min {min(n)/min(o):.3f})')
