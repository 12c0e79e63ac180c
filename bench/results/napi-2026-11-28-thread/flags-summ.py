import re,sys,collections,statistics as st
# flags-summ.py FILE: medians (min) of pass 1 (all cold) and pass 3 (warm) per flag set, from
# flags.sh's lines (each line holds a process's 2 workers' medians: the summary takes those).
c=collections.defaultdict(list); w=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'\[(.*?)\] .*pass 1 \(all cold\) ([\d.]+) .*pass 3 \(all warm\) ([\d.]+)',l)
    if m: c[m.group(1)].append(float(m.group(2))); w[m.group(1)].append(float(m.group(3)))
base=st.median(c['default'])
for k in c: print(f"{k:20s} pass 1 {st.median(c[k]):5.1f} (min {min(c[k]):5.1f}) ratio {st.median(c[k])/base:.3f}   pass 3 {st.median(w[k]):5.1f} (min {min(w[k]):5.1f})  n={len(c[k])}")
