#!/usr/bin/env python3
"""Start `grimoire serve` on an index and time its MCP answers over stdio:
when initialize and the first search are answered, then the search latency
once the vectors are loaded, and the server's memory.

usage: mcp_latency.py GRIMOIRE CONFIG [SEARCHES [WAIT [QUERIES]]]; WAIT is
at most how many seconds the vectors are given to load (default 5; the
searches start as soon as the server is idle); QUERIES is a
file of questions, one a line, asked in turn (default: the synthetic
index's pseudo-words)."""
import json, os, subprocess, sys, time

binary, config = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 60
load_wait = float(sys.argv[4]) if len(sys.argv) > 4 else 5
questions = None
if len(sys.argv) > 5:
    questions = [l.strip() for l in open(sys.argv[5]) if l.strip()]
t0 = time.time()
p = subprocess.Popen([binary, "--config", config, "serve"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

def send(m):
    p.stdin.write((json.dumps(m) + "\n").encode())
    p.stdin.flush()

def wait(i):
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m

def search(i, q):
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
          "params": {"name": "search", "arguments": {"query": q}}})
    return wait(i)

send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
wait(1)
t_init = time.time() - t0
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
search(2, questions[0] if questions else "w1 w2k w3z w1b9 w7x")
t_first = time.time() - t0
def cpu_seconds():
    # utime and stime of the server, in clock ticks (fields 14 and 15).
    f = open("/proc/%d/stat" % p.pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

# Let the vectors load: until the server is idle, or WAIT seconds.
deadline = time.time() + load_wait
while time.time() < deadline:
    before = cpu_seconds()
    time.sleep(1)
    if cpu_seconds() - before < 0.05:
        break
cpu0 = cpu_seconds()
lat = []
for i in range(n):
    s = time.time()
    q = questions[i % len(questions)] if questions else "w1 w2k w%d w1b%d w7x" % (i, i % 9)
    r = search(10 + i, q)
    if "error" in r or r.get("result", {}).get("isError"):
        sys.exit("search %r failed: %s" % (q, r))
    lat.append(time.time() - s)
cpu = (cpu_seconds() - cpu0) / n
status = open("/proc/%d/status" % p.pid).read().splitlines()
rss = [l for l in status if l.startswith("VmRSS")][0].split()[1]
hwm = [l for l in status if l.startswith("VmHWM")][0].split()[1]
# Of the resident memory, what the process holds itself; the rest is the
# index file's pages, mapped, which the system takes back when it needs to.
anon = [l for l in status if l.startswith("RssAnon")][0].split()[1]
p.kill()
lat.sort()
def pct(p):
    return 1000 * lat[min(len(lat) - 1, int(len(lat) * p))]
print("initialize answered %.2f s after start, first search %.2f s; then search p50 %.1f ms, p90 %.1f ms, p95 %.1f ms, server CPU %.1f ms a search (n=%d); RSS %d MB (%d MB its own), peak %d MB"
      % (t_init, t_first, pct(0.5), pct(0.9), pct(0.95), 1000 * cpu, n, int(rss) // 1024, int(anon) // 1024, int(hwm) // 1024))
