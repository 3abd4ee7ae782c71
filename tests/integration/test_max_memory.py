#!/usr/bin/env python3
"""test_max_memory: jarvis-analyze --max-memory (issue 17, item 3): a trace too large for the budget ends in a
clear out-of-memory error naming the trace and the budget, exit 1, nothing written; the same trace within a
larger budget is analysed; malformed or too small budgets are usage errors (exit 2).

usage: test_max_memory.py PATH/TO/jarvis-analyze [--sanitized]

--sanitized (an ASan build) skips: the budget caps the address space, which ASan's shadow memory needs.
The trace (2.5 million kernels under one op, hostile_gen.py one_corr) is generated at test time: with 2 million
(before 16-byte events) the analysis came within 256 MiB in some runs.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck
from jvcheck import check, finish, skip  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_gen as gen  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
if '--sanitized' in sys.argv[2:]:
    skip('the memory budget caps the address space, which ASan needs')
T = tempfile.mkdtemp(prefix='jv_maxmem.')
try:
    trace = os.path.join(T, 'kernels_2500k.json.gz')
    gen.gen_one_corr(trace, 2500000)

    def run(out, *extra):
        p = subprocess.run([BIN, trace, '-o', os.path.join(T, out), '-q'] + list(extra), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=300)
        return p.returncode, p.stderr.decode('utf-8', 'replace')

    rc, err = run('small', '--max-memory', '256M')
    check(rc == 1, 'over the budget: exit 1', rc)
    check('out of memory' in err and '--max-memory 256 MiB' in err and trace in err,
          'the error says out of memory, names the trace and the budget', err[-400:])
    check(not os.path.exists(os.path.join(T, 'small')), 'nothing written over the budget')
    check(not [n for n in os.listdir(T) if n.startswith('.small')], 'no private folder left over the budget',
          os.listdir(T))

    rc, err = run('large', '--max-memory', '4G')
    check(rc == 0, 'within a 4 GiB budget: analysed', rc, err[-400:])
    check(os.path.exists(os.path.join(T, 'large', 'report.html')), 'within the budget: the report is written')

    for bad, what in (('12X', 'a size such as'), ('100M', 'under 256 MiB'), ('-1G', 'a size such as')):
        rc, err = run('bad', '--max-memory', bad)
        check(rc == 2 and what in err, '--max-memory %s: usage error naming the problem' % bad, rc, err[-300:])
finally:
    shutil.rmtree(T, ignore_errors=True)
sys.exit(finish())
