"""Shared helpers of the Python checks under tests/ (Python 3 standard library only).

A test script (in tests/unit/ or tests/integration/) finds this module, in the parent folder of its own, through
one line after its imports, the same in every script:

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check

and then counts its checks and ends with the plain closing line and exit status:

    from jvcheck import check, finish
    check(rows == 3, f'3 rows, got {rows}')   # prints 'FAIL: ...' when false
    sys.exit(finish())                         # prints 'N passed, N failed'; 1 / 77 / 0

Exit statuses (ctest's SKIP_RETURN_CODE is 77 in tests/CMakeLists.txt):
- 1: a check failed;
- 77: skipped: `skip()` (the whole test cannot run: an optional tool or module is missing), or a part of
  the checks could not run (`skip_part`, `optional_module`, `optional_tool`) and none failed;
- 0: every check ran and passed.

Optional tools are looked up through `find_module` / `find_tool`; the environment variable JV_TEST_HIDE
(names separated by commas or spaces: python modules such as markdown_it, commands such as chromium, or
a tool's path) makes them look missing, so the skip paths can be tried on a machine that has the tools.
"""
import csv
import importlib
import math
import os
import shutil
import subprocess
import sys

SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests

# TraceLens-sized cells (kernel names, argument lists) exceed csv's default 128 KiB field limit
csv.field_size_limit(1 << 30)


class Tally:
    """Counts passed and failed checks; the module-level check()/finish() use one shared Tally.

    echo: print 'FAIL: <what>' for each failed check as it happens (False: only collect them in
    `failures`, for a caller that prints its own summary).
    """

    def __init__(self, echo=True):
        self.passed = 0
        self.failed = 0
        self.failures = []   # the failure messages, in order
        self.skipped = []    # the reasons of the parts that could not run (skip_part)
        self.echo = echo

    @property
    def total(self):
        """Number of checks counted so far."""
        return self.passed + self.failed

    def check(self, cond, what, *values, echo=None):
        """Counts one check: passed when `cond` is true, failed otherwise.

        On failure the message is `what` (it names the check), followed by ': ' and the repr of each of
        `values` when given (the values compared), recorded in `failures` and printed as 'FAIL: <message>'
        unless echo (this call's, else the Tally's) is false. Returns bool(cond), so a check can guard
        checks that depend on it: `if check(x is not None, 'x'): check(x.y == 1, 'x.y')`.
        """
        if cond:
            self.passed += 1
            return True
        self.failed += 1
        msg = what if not values else '%s: %s' % (what, ', '.join(repr(v) for v in values))
        self.failures.append(msg)
        if self.echo if echo is None else echo:
            print('FAIL:', msg)
        return False

    def skip_part(self, reason):
        """Records that a part of the checks could not run, printing 'skipped: <reason>'. The test goes
        on with the other checks; finish() then returns 77 unless a check failed."""
        self.skipped.append(reason)
        print('skipped:', reason)

    def finish(self):
        """Prints the closing line 'N passed, N failed' (alone on its line) and returns the exit status:
        1 when a check failed, 77 when none failed but a part was skipped, else 0."""
        print(f'{self.passed} passed, {self.failed} failed')
        if self.failed:
            return 1
        return SKIP if self.skipped else 0


_tally = Tally()


def check(cond, what, *values, echo=None):
    """Tally.check on the shared tally of this test run (see Tally.check)."""
    return _tally.check(cond, what, *values, echo=echo)


def skip_part(reason):
    """Tally.skip_part on the shared tally: a part could not run; finish() returns 77 if nothing failed."""
    _tally.skip_part(reason)


def finish():
    """Tally.finish on the shared tally: prints 'N passed, N failed', returns 1, 77 or 0."""
    return _tally.finish()


def tally():
    """The shared Tally (its passed, failed, failures and skipped so far)."""
    return _tally


def skip(reason):
    """The whole test cannot run: prints 'SKIP: <reason>' and exits with status 77 (ctest: skipped)."""
    print('SKIP:', reason)
    sys.stdout.flush()
    sys.exit(SKIP)


# ------------------------------------------------------------------------------------------------------
# numbers and CSV sheets

def close(a, b, rel=1e-9, abs_tol=0.0, nan_equal=False):
    """True when a and b are within max(abs_tol, rel * max(|a|, |b|)) of each other (math.isclose).

    a and b are converted with float() (numbers, or numeric text such as a CSV cell or an HTML attribute;
    anything else raises). Infinities are close only to the same infinity; NaN is close to nothing,
    unless nan_equal is true, then NaN is close to NaN (both values absent).
    """
    a, b = float(a), float(b)
    if nan_equal and math.isnan(a) and math.isnan(b):
        return True
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)


def closeness(rel, abs_tol=0.0, nan_equal=False):
    """A close() with this test's default tolerances: returns f(a, b, rel=rel, abs_tol=abs_tol), whose
    own rel / abs_tol (positional or keyword) override these for one call."""
    def close_with(a, b, rel=rel, abs_tol=abs_tol):
        return close(a, b, rel, abs_tol, nan_equal)
    return close_with


def num(text, empty=math.nan):
    """A CSV cell as a float: `empty` (NaN unless given, e.g. 0.0) for an absent cell (None or ''),
    float(text) otherwise ('inf' and 'nan' included). Text that is not a number raises ValueError:
    a malformed cell is a finding, not a missing value."""
    if text is None or text == '':
        return empty
    return float(text)


def read_csv(path, optional=False, plain=False):
    """The rows of a UTF-8 CSV file: a list of dicts keyed by the header (csv.DictReader), or with
    plain=True a list of lists, the header row first (csv.reader). A missing file raises
    FileNotFoundError, or gives [] with optional=True (a sheet the tool writes only when it has rows).
    Fields may be up to 1 GiB (the field size limit is raised on import)."""
    if optional and not os.path.exists(path):
        return []
    with open(path, newline='', encoding='utf-8') as f:
        return list(csv.reader(f) if plain else csv.DictReader(f))


def run(*argv, **kw):
    """Runs a program (argv: the program and its arguments) and returns its CompletedProcess with
    stdout and stderr captured as text; keyword arguments go to subprocess.run (cwd, timeout, ...)."""
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)


# ------------------------------------------------------------------------------------------------------
# memcpy / memset and the elementwise baseline, recomputed from the trace (not from jarvis' classification)

TRANSFER_CATS = {'gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset'}
BASELINE_OPS = {'aten::add', 'aten::add_', 'aten::mul', 'aten::mul_', 'aten::copy_'}
BASE_CALL_BYTES, BASE_MIN_CALLS, BASE_MIN_BYTES = 1 << 20, 8, 64 << 20  # README "Elementwise baseline"


def trace_events(path):
    """The traceEvents of a Kineto trace (.json or .json.gz)."""
    import gzip
    import json
    with (gzip.open if path.endswith('.gz') else open)(path, 'rt', encoding='utf-8', errors='replace') as f:
        d = json.load(f)
    return d.get('traceEvents', []) if isinstance(d, dict) else d


def transfer_names(path):
    """The names of the trace's memcpy and memset events, by the events' category (gpu_memcpy, gpu_memset,
    or the 2021 schema's Memcpy, Memset)."""
    return {e.get('name', '') for e in trace_events(path) if e.get('cat') in TRANSFER_CATS}


def row_kernels(row):
    """The kernels of a row as (name, total µs): from a <cat>_ops.csv row's `kernels` (every instance's distinct
    kernels, the largest 8) or else a unified_perf_summary row's kernel_details_summary (TraceLens' positional
    template: the first instance's kernels)."""
    import ast
    text = row.get('kernels') or row.get('kernel_details_summary', '')
    try:
        ks = ast.literal_eval(text) if text else []
    except (ValueError, SyntaxError):
        return []
    return [(k.get('name', ''), float(k.get('total_us', k.get('total_duration_us', 0)))) for k in ks]


def row_transfer_us(row, names):
    """(time of the row's memcpy/memset kernels, time of all its kernels) in µs; names: transfer_names()."""
    ks = row_kernels(row)
    return sum(t for n, t in ks if n in names), sum(t for _, t in ks)


def expected_baseline(uni, names):
    """The elementwise baseline of rows uni (elementwise_ops.csv rows: every instance's kernels are in them) (REFERENCE.md section 8, README): add/mul/copy_
    rows with bytes and time and no memcpy/memset kernel, those moving >= 1 MiB per call; stated when they make
    >= 8 calls and >= 64 MiB. Returns ('ok', TB/s), ('too few', None) or ('none', None)."""
    cand = []
    for r in uni:
        mb, t, n = num(r['Data Moved (MB)']), num(r['Kernel Time (µs)_sum']), int(r['operation_count'])
        if r['name'] not in BASELINE_OPS or not (mb > 0) or not (t > 0) or row_transfer_us(r, names)[0] > 0:
            continue
        cand.append((mb * 1048576, n, t))
    if not cand:
        return 'none', None
    big = [(b, n, t) for b, n, t in cand if b >= BASE_CALL_BYTES]
    calls, byts, us = sum(n for _, n, _ in big), sum(b * n for b, n, _ in big), sum(t for _, _, t in big)
    if calls < BASE_MIN_CALLS or byts < BASE_MIN_BYTES or not us > 0:
        return 'too few', None
    return 'ok', byts / (us * 1e-6) / 1e12


# ------------------------------------------------------------------------------------------------------
# optional dependencies

def _hidden(name):
    """True when JV_TEST_HIDE names `name` (a module, a command or a path): it is to look missing."""
    hide = os.environ.get('JV_TEST_HIDE', '').replace(',', ' ').split()
    return name in hide or os.path.basename(name) in hide


def find_module(name):
    """The imported module `name` (dotted names allowed), or None when it cannot be imported or
    JV_TEST_HIDE names it or its top-level package. Prints nothing."""
    if _hidden(name) or _hidden(name.split('.')[0]):
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def find_tool(cmd):
    """The path of a program: cmd is a command name looked up on PATH, an absolute path (a file that
    must exist: an executable, or a script run by an interpreter), or a tuple of alternatives (the first
    found wins). None when none is found or JV_TEST_HIDE names it. Prints nothing."""
    for c in (cmd if isinstance(cmd, (tuple, list)) else (cmd,)):
        if _hidden(c):
            continue
        if os.path.isabs(c):
            path = c if os.path.isfile(c) else None
        else:
            path = shutil.which(c)
        if path:
            return path
    return None


def _missing(kind, name, why):
    names = ' or '.join(name) if isinstance(name, (tuple, list)) else name
    return f'{why}: {kind} {names} not found'


def require_module(name, why):
    """Returns the module `name`; when it is missing the whole test is skipped: prints
    'SKIP: <why>: python module <name> not found' and exits 77. `why` names what needs it and
    where it comes from, e.g. 'the workbook reader (Debian: python3-openpyxl)'."""
    mod = find_module(name)
    if mod is None:
        skip(_missing('python module', name, why))
    return mod


def require_tool(cmd, why):
    """Returns the path of the program `cmd` (see find_tool); when it is missing the whole test is
    skipped: prints 'SKIP: <why>: program <cmd> not found' and exits 77."""
    path = find_tool(cmd)
    if path is None:
        skip(_missing('program', cmd, why))
    return path


def optional_module(name, why):
    """Returns the module `name`, or None when it is missing after recording a skipped part
    (skip_part: 'skipped: <why>: python module <name> not found'): the caller leaves out the checks
    that need it, runs the others, and finish() returns 77 unless one failed."""
    mod = find_module(name)
    if mod is None:
        skip_part(_missing('python module', name, why))
    return mod


def optional_tool(cmd, why):
    """Returns the path of the program `cmd` (see find_tool), or None when it is missing after recording
    a skipped part, as optional_module does."""
    path = find_tool(cmd)
    if path is None:
        skip_part(_missing('program', cmd, why))
    return path
