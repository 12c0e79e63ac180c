import sys, subprocess, os
env = {**os.environ}
for i in range(int(sys.argv[1])):
    p = subprocess.run(sys.argv[2:], capture_output=True, text=True, env=env)
    ms = [(float(l.split()[1]), l.split()[3]) for l in p.stderr.split('\n') if l.startswith('TR ')]
    t0 = [t for t, m in ms if m == 'load-start'][0]
    print(' '.join(f"{m}@{t - t0:.0f}" for t, m in ms if t - t0 < 700 and not m.startswith('bundle-end_1')))
