#!/usr/bin/env python3
"""CPU-seconds by process while a command runs, read from /proc every 0.5 s (so a process that
lives under half a second is missed and one's last half second may be).

Two modes:
- The command's own tree (user + system): its processes grouped by command (Jest's parent and
  workers, spawned dist/ processes, servers a fault run starts), the PostgreSQL backends whose
  title matches a pattern (their database), and extra pids (a Temporal dev server or Redis the
  command uses but did not start).
- `--machine`: every process on the machine (what the command started and everything else, a
  whole CI run's Temporal dev servers and PostgreSQL included), user and system apart, grouped by
  command, beside the machine's own user / nice / system / idle split from /proc/stat. Processes
  whose working directory is under a path given with `--apart <dir>` are labelled apart (other
  work on the machine).
docs/development.md ("Where the CPU goes") has the commands.

usage: python3 scripts/cpu-by-process.py <database pattern> <extra pids, comma-separated> -- command...
       python3 scripts/cpu-by-process.py --machine [--apart <dir>] -- command...
"""
import os, sys, subprocess, time, collections, re
HZ = os.sysconf('SC_CLK_TCK')
cmd = sys.argv[sys.argv.index('--') + 1:]
opts = sys.argv[1:sys.argv.index('--')]
machine = '--machine' in opts
apart = opts[opts.index('--apart') + 1] if '--apart' in opts else None
if not machine:
    db, extra = opts[0], [int(p) for p in opts[1].split(',') if p]

def stat(pid):
    """(parent pid, user seconds, system seconds), or None when the process is gone."""
    try:
        s = open(f'/proc/{pid}/stat').read()
        f = s[s.rindex(')') + 2:].split()
        return int(f[1]), int(f[11]) / HZ, int(f[12]) / HZ
    except Exception:
        return None
def cmdline(pid):
    try:
        return open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace').strip()
    except Exception:
        return ''
def label(c):
    # PostgreSQL first: a backend's title names its database, which may contain "temporal".
    if c.startswith('postgres'): return 'postgres'
    if 'jest-worker' in c or 'processChild' in c: return 'jest worker'
    if 'node_modules/.bin/jest' in c or '/jest/bin' in c or 'jest-cli' in c: return 'jest parent'
    if 'chrom' in c: return 'chromium'
    if 'dist/src/' in c: return 'node ' + c.split('dist/src/')[1].split()[0]
    if 'temporal-server' in c: return 'temporal server'
    if 'start-dev' in c: return 'temporal dev server'
    if 'temporal' in c: return 'temporal'
    return c.split()[0].split('/')[-1] if c else '?'
def machine_label(pid):
    try:
        cwd = os.readlink(f'/proc/{pid}/cwd')
    except Exception:
        cwd = ''
    l = label(cmdline(pid))
    return f'{l} (under {apart})' if apart and cwd.startswith(apart) else l
def cpu_split():
    return [int(x) for x in open('/proc/stat').readline().split()[1:9]]

def run_machine():
    first, last, labels = {}, {}, {}
    def sample(initial):
        for p in os.listdir('/proc'):
            if not p.isdigit(): continue
            pid, s = int(p), stat(int(p))
            if not s: continue
            if pid not in labels:
                labels[pid] = machine_label(pid)
                first[pid] = (s[1], s[2]) if initial else (0.0, 0.0)
            last[pid] = (s[1], s[2])
    sample(True)
    split0, start_wall = cpu_split(), time.time()
    child = subprocess.Popen(cmd)
    while child.poll() is None:
        time.sleep(0.5)
        sample(False)
    split = [b - a for a, b in zip(split0, cpu_split())]
    groups = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for pid, (u, s) in last.items():
        g = groups[labels[pid]]
        g[0] += u - first[pid][0]; g[1] += s - first[pid][1]; g[2] += 1
    names = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal']
    out = [f'wall {time.time() - start_wall:.0f} s, exit {child.returncode}; machine: ' +
           ', '.join(f'{n} {100 * x / sum(split):.1f}%' for n, x in zip(names, split))]
    for l, (u, s, n) in sorted(groups.items(), key=lambda kv: -(kv[1][0] + kv[1][1])):
        if u + s >= 0.5: out.append(f'  {l} ({n} processes): {u + s:.1f} CPU-s (user {u:.1f}, system {s:.1f})')
    out.append(f'  total {sum(u + s for u, s, _ in groups.values()):.1f} CPU-s')
    print('\n'.join(out), file=sys.stderr)
    return child.returncode

def run_tree():
    start_extra = {p: sum((stat(p) or (0, 0, 0))[1:]) for p in extra}
    start_wall = time.time()
    child = subprocess.Popen(cmd)
    seen = {}  # pid -> (label, first cpu, last cpu)
    pg = {}
    while True:
        pids = [int(p) for p in os.listdir('/proc') if p.isdigit()]
        parent, cpu = {}, {}
        for p in pids:
            s = stat(p)
            if s: parent[p], cpu[p] = s[0], s[1] + s[2]
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
    groups, counts = collections.Counter(), collections.Counter()
    for p, (l, first, last) in seen.items():
        groups[l] += last - first; counts[l] += 1
    out = [f'wall {wall:.0f} s, exit {child.returncode}']
    for l, v in groups.most_common(): out.append(f'  {l} ({counts[l]} processes): {v:.1f} CPU-s')
    out.append(f'  postgres backends of {db} ({len(pg)}): {sum(pg.values()):.1f} CPU-s (cumulative from first sight)')
    extra_now = {p: sum((stat(p) or (0, 0, 0))[1:]) - start_extra[p] for p in extra}
    for p in extra: out.append(f'  pid {p} {label(cmdline(p))}: {extra_now[p]:.1f} CPU-s')
    out.append(f'  total {sum(groups.values()) + sum(pg.values()) + sum(extra_now.values()):.1f} CPU-s')
    print('\n'.join(out), file=sys.stderr)
    return child.returncode

sys.exit(run_machine() if machine else run_tree())
