#!/usr/bin/env python3
"""test_category_trees: the call trees of category_data/<cat>_tree_data.json against trees computed here from a
generated trace (hostile_gen.gen_example_trees: examples holding more than the 300-node cap, examples holding all
of their subtree, two kernels starting together, kernels that are examples of synthetic rows).

For every example op: its parent chain (root first), and its subtree node by node in the documented order
(depth first, children by start time, the later UID first among equal starts; nodes whose parent was left out
by the cap at the end, in UID order), each with its depth below the example and its parent's UID; the first 300
descendants in UID order are kept, the rest counted in subtree_nodes_left_out. A wrong depth, a missing or
extra node, a wrong order or a wrong left-out count fails.

Also the fusion candidates found through parent ops (category_findings/elementwise_findings.md): the holder of
an elementwise instance is the nearest op above it (hostile_gen.gen_fusion_holders).

usage: test_category_trees.py PATH/TO/jarvis-analyze
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_gen as gen  # noqa: E402

CAP = 300
BIN = os.path.abspath(sys.argv[1])
T = tempfile.mkdtemp(prefix='jv_cat_trees.')


def parents_of(ev):
    """the tree jarvis builds for this trace: host events (pid 100) nest by time, a kernel hangs under the
    launch carrying its correlation id"""
    parent = [None] * len(ev)
    host = sorted((i for i, e in enumerate(ev) if e['cat'] != 'kernel'),
                  key=lambda i: (ev[i]['ts'], -ev[i]['dur'], i))
    stack = []
    for i in host:
        e = ev[i]
        while stack and e['ts'] + e['dur'] > ev[stack[-1]]['ts'] + ev[stack[-1]]['dur']:
            stack.pop()
        parent[i] = stack[-1] if stack else None
        stack.append(i)
    launch_of = {e['args']['correlation']: i for i, e in enumerate(ev) if e['cat'] == 'cuda_runtime'}
    for i, e in enumerate(ev):
        if e['cat'] == 'kernel':
            parent[i] = launch_of[e['args']['correlation']]
    return parent


def expected(ev, parent, children, x):
    """(parent chain root first, subtree [(uid, depth, parent uid)] in order, left out, kernels kept)"""
    chain = []
    p = parent[x]
    while p is not None:
        chain.append(p)
        p = parent[p]
    chain.reverse()
    desc, todo = [], [x]
    while todo:
        for c in children[todo.pop()]:
            desc.append(c)
            todo.append(c)
    desc.sort()
    kept = set(desc[:CAP])
    depth = {x: 0}
    order = []

    def visit_order(v):
        return sorted((c for c in children[v] if c in kept), key=lambda c: (ev[c]['ts'], -c))

    stack = list(reversed(visit_order(x)))
    while stack:
        v = stack.pop()
        depth[v] = depth[parent[v]] + 1
        order.append(v)
        stack.extend(reversed(visit_order(v)))
    reached = set(order)
    for v in sorted(kept - reached):  # parent left out by the cap: the steps counted through the full tree
        d, p = 0, v
        while p != x:
            p, d = parent[p], d + 1
        depth[v] = d
        order.append(v)
    nodes = [(v, depth[v], parent[v]) for v in order]
    kernels = sum(1 for v in kept if ev[v]['cat'] == 'kernel')
    return chain, nodes, len(desc) - len(kept), kernels


trace = os.path.join(T, 'trees.json')
ev = gen.gen_example_trees(trace)
parent = parents_of(ev)
children = [[] for _ in ev]
for i, p in enumerate(parent):
    if p is not None:
        children[p].append(i)

out = os.path.join(T, 'out')
p = subprocess.run([BIN, '-q', trace, '-o', out], capture_output=True, text=True, timeout=300)
check(p.returncode == 0, 'jarvis-analyze exits 0', p.returncode, p.stderr[-600:])
examples = []
for cat in ('gemm', 'elementwise'):
    fn = os.path.join(out, 'category_data', cat + '_tree_data.json')
    if not check(os.path.exists(fn), f'{cat}_tree_data.json written'):
        continue
    with open(fn, encoding='utf-8') as f:
        tree = json.load(f)
    check(tree['max_subtree_nodes'] == CAP, f'{cat}: the cap is {CAP}', tree['max_subtree_nodes'])
    examples += [(cat, o) for o in tree['ops']]

capped = uncapped = leaves = ties = 0
for cat, o in examples:
    x = o['ex_UID']
    label = f'{cat} example UID {x} ({o["name"]} {o["Input Dims"]})'
    if not check(o['found'] and o['op']['uid'] == x, f'{label}: found, its op is the example'):
        continue
    chain, nodes, left_out, kernels = expected(ev, parent, children, x)
    check([n['uid'] for n in o['parent_chain']] == chain, f'{label}: parent chain, root first',
          [n['uid'] for n in o['parent_chain']], chain)
    got = [(n['uid'], n['depth'], n.get('parent_uid')) for n in o['subtree']]
    if got != nodes:
        bad = next(k for k in range(min(len(got), len(nodes)) + 1)
                   if k == min(len(got), len(nodes)) or got[k] != nodes[k])
        check(False, f'{label}: subtree nodes, depths, parents and order', f'first difference at node {bad}',
              got[bad:bad + 3], nodes[bad:bad + 3], len(got), len(nodes))
    check(o['subtree_nodes'] == len(nodes) and o['subtree_nodes_left_out'] == left_out,
          f'{label}: subtree_nodes {len(nodes)}, left out {left_out}', o['subtree_nodes'], o['subtree_nodes_left_out'])
    check(o['subtree_gpu_events'] == kernels, f'{label}: {kernels} GPU events in the subtree', o['subtree_gpu_events'])
    capped += left_out > 0
    uncapped += left_out == 0 and len(nodes) >= 5
    leaves += not nodes and len(chain) >= 2
    ties += any(ev[a]['ts'] == ev[b]['ts'] and parent[a] == parent[b] for a, b in zip(
        [n[0] for n in nodes], [n[0] for n in nodes][1:]))

# the fusion candidates through parent ops (no nn.Module events): the holder of each elementwise instance is the
# nearest op above it (my::block, under one to three my::outer ops)
fus = os.path.join(T, 'fusion.json')
gen.gen_fusion_holders(fus)
p = subprocess.run([BIN, '-q', fus, '-o', os.path.join(T, 'fusion')], capture_output=True, text=True, timeout=300)
if check(p.returncode == 0, 'fusion: exit 0', p.returncode, p.stderr[-600:]):
    with open(os.path.join(T, 'fusion', 'category_findings', 'elementwise_findings.md'), encoding='utf-8') as f:
        md = f.read()
    rows = [[c.strip() for c in line.split('|')[1:-1]] for line in md.split('## Fusion candidates', 1)[-1].split('\n')
            if line.startswith('| 1 ') or line.startswith('| 2 ')]
    check([r[1:4] for r in rows] == [['`my::block`', '3', '12']],
          'fusion: one candidate, my::block, 3 instances, 12 kernels', rows)

# the trace holds what the checks above need, so they cannot pass on empty trees
check(capped == 2, '2 examples hold more than the cap', capped)
check(uncapped == 30, '30 examples hold a whole subtree of 5 nodes or more', uncapped)
check(leaves == 2, '2 kernel examples (the synthetic rows k0 and k1) with a parent chain', leaves)
check(ties >= 1, 'two sibling kernels that start together are in a subtree', ties)

shutil.rmtree(T, ignore_errors=True)
sys.exit(finish())
