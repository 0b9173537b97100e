#!/usr/bin/env python3
"""CPU-seconds (user + system) by process while a command runs: its process tree grouped by
command (Jest's parent and workers, spawned dist/ processes, servers a fault run starts), the
PostgreSQL backends whose title matches a pattern (their database), and extra pids (a Temporal
dev server or Redis the command uses but did not start). It reads /proc every 0.5 s, so a
process that lives under half a second is missed and one's last half second may be.
docs/development.md ("Where the CPU goes") has the commands.

usage: python3 scripts/cpu-by-process.py <database pattern> <extra pids, comma-separated> -- command...
"""
import os, sys, subprocess, time, collections, re
HZ = os.sysconf('SC_CLK_TCK')
db, extra = sys.argv[1], [int(p) for p in sys.argv[2].split(',') if p]
cmd = sys.argv[sys.argv.index('--') + 1:]
def stat(pid):
    try:
        s = open(f'/proc/{pid}/stat').read()
        f = s[s.rindex(')') + 2:].split()
        return int(f[1]), (int(f[11]) + int(f[12])) / HZ
    except Exception:
        return None
def cmdline(pid):
    try:
        return open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace').strip()
    except Exception:
        return ''
def label(c):
    if 'jest-worker' in c or 'processChild' in c: return 'jest worker'
    if 'node_modules/.bin/jest' in c or '/jest/bin' in c or 'jest-cli' in c: return 'jest parent'
    if 'chrom' in c: return 'chromium'
    if 'dist/src/' in c: return 'node ' + c.split('dist/src/')[1].split()[0]
    if 'temporal' in c: return 'temporal'
    return c.split()[0].split('/')[-1] if c else '?'
start_extra = {p: (stat(p) or (0, 0))[1] for p in extra}
start_wall = time.time()
child = subprocess.Popen(cmd)
seen = {}  # pid -> (label, first cpu, last cpu)
pg = {}
while True:
    pids = [int(p) for p in os.listdir('/proc') if p.isdigit()]
    parent = {}
    cpu = {}
    for p in pids:
        s = stat(p)
        if s: parent[p], cpu[p] = s
    for p in pids:
        if p not in cpu: continue
        q, depth = p, 0
        while q and q != child.pid and depth < 50:
            q, depth = parent.get(q), depth + 1
        if q == child.pid:
            if p not in seen: seen[p] = [label(cmdline(p)), 0.0, cpu[p]]
            seen[p][2] = cpu[p]
        elif p not in seen and p not in pg:
            c = cmdline(p)
            if c.startswith('postgres:') and re.search(db, c):
                pg[p] = cpu[p]
        if p in pg: pg[p] = cpu[p]
    if child.poll() is not None: break
    time.sleep(0.5)
wall = time.time() - start_wall
groups = collections.Counter()
counts = collections.Counter()
for p, (l, first, last) in seen.items():
    groups[l] += last - first; counts[l] += 1
out = [f'wall {wall:.0f} s, exit {child.returncode}']
for l, v in groups.most_common(): out.append(f'  {l} ({counts[l]} processes): {v:.1f} CPU-s')
out.append(f'  postgres backends of {db} ({len(pg)}): {sum(pg.values()):.1f} CPU-s (cumulative from first sight)')
for p in extra: out.append(f'  pid {p} {label(cmdline(p))}: {(stat(p) or (0,0))[1] - start_extra[p]:.1f} CPU-s')
total = sum(groups.values()) + sum(pg.values()) + sum((stat(p) or (0,0))[1] - start_extra[p] for p in extra)
out.append(f'  total {total:.1f} CPU-s')
print('\n'.join(out), file=sys.stderr)
