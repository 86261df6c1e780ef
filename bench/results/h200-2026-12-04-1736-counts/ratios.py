import csv,re,subprocess,sys
d=sys.argv[1]; R_=int(sys.argv[2]); counts=[int(x) for x in sys.argv[3].split(',')]
def rows(r):
    f=f"{d}/h2h_counts_{r}.csv"
    lines=[l for l in open(f) if not l.startswith('#')]
    cl=subprocess.run(['python3','bench/clock_rows.py',f,f"{d}/clocks.csv"],capture_output=True,text=True).stdout
    low=set()
    for l in cl.splitlines():
        m=re.match(r'(.*?)\s+[0-9.]+ ms\s+SM MHz \[(.*)\]',l)
        if m and m.group(2).strip():
            vals=[int(x) for x in re.findall(r'\d+',m.group(2))]
            if min(vals)<1980: low.add(m.group(1).strip())
    out={}
    for row in csv.DictReader(lines):
        if row['group']=='skin-compute': out[row['variant']]=(float(row['value']), row['variant'] in low)
    return out
R=[rows(i+1) for i in range(R_)]
for mesh,verts in [('synthetic',50000),('CesiumMan',3273)]:
  for n in counts:
    for kind in ['LBS','DQS','DQS+residual','DQS+res polar','DQS+res few','DQS uniform','DQS uni/joint','mixed']:
        a=f"{mesh} {kind} x{n}"; b=f"{mesh} {kind} 8/inv x{n}"
        if a not in R[0]: continue
        va=[R[i][a] for i in range(R_)]; vb=[R[i][b] for i in range(R_)]
        fa=[x for x,l in va if not l]; fb=[x for x,l in vb if not l]
        star=lambda v:' '.join(f"{x:6.2f}{'*' if l else ' '}" for x,l in v)
        ratio=f"{max(fb)/max(fa):.3f}" if fa and fb else "  -  "
        print(f"{mesh:9s} x{n:<4d} {n*verts/1e6:6.2f}M {kind:14s} 4: {star(va)} | 8: {star(vb)} | {ratio}")
