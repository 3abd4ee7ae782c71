#!/usr/bin/env python3
"""OUTDIR/report.html (analysis/jv_html.c): one self-contained page, checked against the CSVs beside it.

For each trace analysed (the bundled example; a copy of it whose op names hold HTML specials; fixtures:
MI300X ResNet-18 training, H100 Qwen inference, a trace without deviceProperties, the same with
--gpu-arch none, a GPU-only trace, and an H100 / MI300X VF pair with --reference):
- the page parses with html.parser and every opened element is closed in order (void elements aside);
- nothing is fetched: no http(s):// except the SVG namespace, no <script>, no <link>, no src=, no
  url() other than url(#id), no @import; every href is a #fragment of the page or a file in OUTDIR;
- the roofline points (circle.pt) are exactly the top-15 rows of perf_report_csvs/unified_perf_summary.csv
  (ordered as the digest orders them: kernel time, then ex_UID) that have a model, with data-uid = ex_UID,
  data-fpb = FLOPS/Byte, data-tflops = TFLOPS/s_mean (1e-6 relative), data-us = Kernel Time (µs)_sum;
  the note counts the ops left out; each point's cx, cy follow from its values and the log axes the
  <svg> exposes, inside the plot area; the tick labels are the decades;
- with a roofline GPU: the memory-bound rows' roofline time gives back the HBM bandwidth and the
  compute-bound rows' gives a compute ceiling drawn on the plot; without one, no ceiling is drawn;
- the GPU timeline segments equal perf_report_csvs/gpu_timeline.csv; category totals sum to the kernel
  time; the layout-conversion total equals the transpose kernels of the convolution rows (from
  kernel_details_summary); with --reference, the reference's kernel time and timeline equal its own CSVs;
- headless Chromium renders it: a 1200x3000 PNG with many colours (read with zlib/struct), and the
  DOM it builds still holds every point (without chromium these checks are skipped, the others run: exit 77
  unless one fails).
Usage: test_html_report.py JARVIS_ANALYZE EXAMPLE_TRACE SHARED_DIR
"""
import ast
import gzip
import html
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, closeness, finish, num, optional_tool, read_csv, run, skip_part  # noqa: E402

TOP_N = 15
VOID = {'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr'}
LAYOUT = ('batched_transpose', 'nchwToNhwc', 'nhwcToNchw', 'transpose_', 'Transpose', 'nchw2nhwc', 'nhwc2nchw')
close = closeness(rel=1e-6, abs_tol=1e-12)  # a, b: numbers or numeric text (CSV cells, data- attributes)


class Page(HTMLParser):
    """Element stack (well-formedness), the marked elements, texts and links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tags = [], [], {}
        self.circles, self.tl, self.cmp, self.ceils, self.cats, self.hrefs, self.ids = [], [], [], [], [], [], set()
        self.roof = None
        self.layout = None
        self.ticks = []       # (text) of class ax texts inside the roofline svg
        self.texts = []
        self.circle_title = None
        self.in_roof = 0
        self.cur_text = None

    def _attrs(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if 'id' in a:
            self.ids.add(a['id'])
        if 'href' in a:
            self.hrefs.append((tag, a['href']))
        cls = (a.get('class') or '').split()
        if tag == 'svg' and a.get('id') == 'roofline-svg':
            self.roof = a
        if tag == 'circle' and 'pt' in cls:
            self.circles.append(a)
        if tag == 'rect' and 'tl' in cls:
            self.tl.append(a)
        if tag == 'rect' and any(c.startswith('cmp-tl-') for c in cls):
            self.cmp.append((cls[0], a))
        if tag == 'line' and 'ceil' in cls:
            self.ceils.append(a)
        if tag == 'tr' and 'cat-total' in cls:
            self.cats.append(a)
        if tag == 'p' and 'layout-sum' in cls:
            self.layout = a
        if tag == 'td' and 'cmp-ktime' in cls:
            self.cmp.append(('cmp-ktime', a))
        return a, cls

    def handle_starttag(self, tag, attrs):
        a, cls = self._attrs(tag, attrs)
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag == 'svg' and a.get('id') == 'roofline-svg':
            self.in_roof = len(self.stack)
        if tag == 'circle' and 'pt' in cls:
            self.circle_title = ''
        if tag == 'text' and self.in_roof and 'ax' in cls:
            self.cur_text = ''

    def handle_startendtag(self, tag, attrs):
        self._attrs(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f'</{tag}> closes <{self.stack[-1] if self.stack else None}> at {self.getpos()}')
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        if tag == 'svg' and self.in_roof == len(self.stack):
            self.in_roof = 0
        if tag == 'circle' and self.circle_title is not None:
            self.circles[-1]['_title'] = self.circle_title
            self.circle_title = None
        if tag == 'text' and self.cur_text is not None:
            self.ticks.append(self.cur_text)
            self.cur_text = None
        self.stack.pop()

    def handle_data(self, data):
        self.texts.append(data)
        if self.circle_title is not None:
            self.circle_title += data
        if self.cur_text is not None:
            self.cur_text += data


def expected_rows(out):
    """The unified rows in the digest's order (kernel time desc, then ex_UID)."""
    rows = read_csv(os.path.join(out, 'perf_report_csvs', 'unified_perf_summary.csv'))
    rows.sort(key=lambda r: (-num(r['Kernel Time (µs)_sum']), int(r['ex_UID'])))
    return rows


def has_model(r):
    vals = [num(r['GFLOPS']), num(r['Data Moved (MB)']), num(r['Kernel Time (µs)_sum']),
            num(r['FLOPS/Byte']), num(r['TFLOPS/s_mean'])]
    return all(v > 0 and math.isfinite(v) for v in vals)


def analyze(exe, trace, out, *extra):
    if os.path.exists(out):
        shutil.rmtree(out)
    p = run(exe, trace, '-o', out, '-q', *extra)
    check(p.returncode == 0, f'analyze {os.path.basename(trace)} {extra}: exit {p.returncode}: {p.stderr[-400:]}')
    return p.returncode == 0


def check_page(out, label, has_hw):
    """All the checks on OUTDIR/report.html; returns the parsed page (or None)."""
    path = os.path.join(out, 'report.html')
    if not check(os.path.isfile(path), f'{label}: report.html written'):
        return None
    check(not [f for f in os.listdir(out) if '.tmp.' in f], f'{label}: no temporary file left')
    raw = open(path, encoding='utf-8').read()
    pg = Page()
    pg.feed(raw)
    pg.close()
    check(raw.startswith('<!DOCTYPE html>'), f'{label}: HTML5 doctype')
    check(not pg.errors, f'{label}: elements close in order: {pg.errors[:3]}')
    check(not pg.stack, f'{label}: every element closed (left open: {pg.stack})')
    check(all(pg.tags.get(t) == 1 for t in ('html', 'head', 'body', 'style', 'main')),
          f'{label}: one html/head/body/style/main')

    # self-contained
    bare = raw.replace('xmlns="http://www.w3.org/2000/svg"', '')
    check('http://' not in bare and 'https://' not in bare, f'{label}: no http(s) URL')
    check('script' not in pg.tags and '<script' not in raw.lower(), f'{label}: no <script>')
    check('link' not in pg.tags and 'img' not in pg.tags, f'{label}: no <link>, no <img>')
    check(not re.search(r'\ssrc\s*=', raw), f'{label}: no src= attribute')
    check(not re.search(r'url\((?!#)', raw) and '@import' not in raw, f'{label}: no url() but url(#id), no @import')
    for tag, href in pg.hrefs:
        if href.startswith('#'):
            check(href[1:] in pg.ids, f'{label}: fragment {href} names an element')
        else:
            check(':' not in href.split('/')[0] and not href.startswith('/'), f'{label}: href {href} is relative')
            check(os.path.exists(os.path.join(out, href)), f'{label}: href {href} resolves in OUTDIR')

    rows = expected_rows(out)
    top = rows[:TOP_N]
    want = [(i + 1, r) for i, r in enumerate(top) if has_model(r)]

    # roofline points
    pts = sorted(pg.circles, key=lambda a: int(a['data-rank']))
    check(len(pts) == len(want), f'{label}: {len(pts)} points, expected {len(want)} top rows with a model')
    for (rank, r), a in zip(want, pts):
        check(int(a['data-rank']) == rank, f'{label}: point rank {a["data-rank"]} == {rank}')
        check(a['data-uid'] == r['ex_UID'], f'{label}: point #{rank} uid {a["data-uid"]} == ex_UID {r["ex_UID"]}')
        check(close(a['data-fpb'], r['FLOPS/Byte']), f'{label}: #{rank} fpb {a["data-fpb"]} vs {r["FLOPS/Byte"]}')
        check(close(a['data-tflops'], r['TFLOPS/s_mean']),
              f'{label}: #{rank} tflops {a["data-tflops"]} vs {r["TFLOPS/s_mean"]}')
        check(close(a['data-us'], r['Kernel Time (µs)_sum'], 1e-9),
              f'{label}: #{rank} us {a["data-us"]} vs {r["Kernel Time (µs)_sum"]}')
        check(a.get('_title', '').startswith(f'#{rank} {r["name"]}'), f'{label}: #{rank} tooltip names {r["name"]!r}')
    left = len(top) - len(want)
    m = re.search(r'(\d+) of the top (\d+) ops are not plotted', ''.join(pg.texts))
    if left:
        check(m and int(m.group(1)) == left and int(m.group(2)) == len(top), f'{label}: note says {left} left out')
    else:
        check(m is None, f'{label}: no left-out note when every top op is plotted')

    # the axes: coordinates follow from the values
    if pts:
        R = pg.roof
        if check(R is not None, f'{label}: roofline svg with its axes'):
            x0, x1, y0, y1 = (float(R[k]) for k in ('data-xlog-min', 'data-xlog-max', 'data-ylog-min', 'data-ylog-max'))
            px0, px1, py0, py1 = (float(R[k]) for k in ('data-px0', 'data-px1', 'data-py0', 'data-py1'))
            check(x1 - x0 >= 3 and y1 - y0 >= 3 and x0 == int(x0) and y0 == int(y0), f'{label}: whole decades')
            for a in pts:
                cx = px0 + (math.log10(float(a['data-fpb'])) - x0) / (x1 - x0) * (px1 - px0)
                cy = py1 - (math.log10(float(a['data-tflops'])) - y0) / (y1 - y0) * (py1 - py0)
                check(abs(cx - float(a['cx'])) < 0.01 and abs(cy - float(a['cy'])) < 0.01,
                      f'{label}: point {a["data-rank"]} at ({a["cx"]},{a["cy"]}), expected ({cx:.3f},{cy:.3f})')
                check(px0 <= cx <= px1 and py0 <= cy <= py1, f'{label}: point {a["data-rank"]} inside the plot')
            # area proportional to time (above the 2.5 px floor)
            big = num(top[0]['Kernel Time (µs)_sum'])  # on the scale of the largest op
            for a in pts:
                r_exp = 20 * math.sqrt(float(a['data-us']) / big)
                check(abs(float(a['r']) - max(2.5, r_exp)) < 0.01, f'{label}: point {a["data-rank"]} radius')
            want_ticks = {('%g' % 10 ** k) if -3 <= k <= 4 else f'1e{k}' for k in range(int(x0), int(x1) + 1)}
            check(want_ticks <= set(pg.ticks), f'{label}: x decades labelled {sorted(want_ticks)}')
            want_y = {('%g' % 10 ** k) if -3 <= k <= 4 else f'1e{k}' for k in range(int(y0), int(y1) + 1)}
            check(want_y <= set(pg.ticks), f'{label}: y decades labelled {sorted(want_y)}')

    # ceilings: recomputed from the rows' roofline times
    if has_hw and pts:
        peaks = [float(c['data-tflops']) for c in pg.ceils]
        check(len(peaks) >= 1, f'{label}: compute ceilings drawn')
        check(re.search(r'HBM [0-9.]+ TB/s', ''.join(pg.texts)) is not None, f'{label}: memory ceiling labelled')
        # the ceilings follow the peak policy (datasheet): the category data's roofline time, not the sheet's
        # TraceLens column (MI300X's max-achievable 708)
        pol = {}
        for cat in ('gemm', 'convolution', 'batchnorm', 'elementwise', 'other'):
            p = os.path.join(out, 'category_data', f'{cat}_ops.csv')
            if os.path.isfile(p):
                pol.update({(c['name'], c['ex_UID']): c for c in read_csv(p)})
        for rank, r in want:
            c = pol.get((r['name'], r['ex_UID']))
            if c is None:
                continue
            r = dict(r, **{'Roofline Time (µs)_first': c['Roofline Time (µs)_first'],
                           'Roofline Bound': c['Roofline Bound']})
            roof = num(r['Roofline Time (µs)_first'])
            if not (roof > 0):
                continue
            if r['Roofline Bound'] == 'COMPUTE_BOUND':
                peak = num(r['GFLOPS']) * 1e9 / (roof * 1e-6) / 1e12
                check(any(close(peak, p, 1e-6) for p in peaks), f'{label}: #{rank} peak {peak:.1f} drawn ({peaks})')
    if not has_hw:
        check(not pg.ceils, f'{label}: no ceilings without a roofline GPU')
        if pts:
            check('No roofline GPU' in ''.join(pg.texts), f'{label}: says there is no roofline GPU')

    # GPU timeline
    tl = {r['type']: r for r in read_csv(os.path.join(out, 'perf_report_csvs', 'gpu_timeline.csv'))}
    total = num(tl['total_time']['time ms'])
    if total > 0:
        check(len(pg.tl) == 4, f'{label}: four timeline segments')
        width = sum(float(a['width']) for a in pg.tl)
        for a in pg.tl:
            c = tl.get(a['data-type'])
            if check(c is not None, f'{label}: timeline {a["data-type"]} in the CSV'):
                check(close(a['data-ms'], c['time ms'], 1e-12), f'{label}: {a["data-type"]} {a["data-ms"]} ms')
                check(close(a['data-pct'], c['percent'], 1e-9), f'{label}: {a["data-type"]} {a["data-pct"]} %')
                check(abs(float(a['width']) / width - num(c['percent']) / 100) < 1e-3, f'{label}: segment width')
    else:
        check(not pg.tl, f'{label}: no timeline bar without GPU time')

    # category totals and the layout conversions
    ksum = sum(num(r['Kernel Time (µs)_sum']) for r in rows)
    check(len(pg.cats) == 5 and close(sum(float(a['data-us']) for a in pg.cats), ksum, 1e-9),
          f'{label}: category totals sum to the kernel time {ksum}')
    lay = 0.0
    nconv = 0
    for r in rows:
        if not r['op category'].startswith('CONV_'):
            continue
        nconv += 1
        for k in ast.literal_eval(r['kernel_details_summary'] or '[]'):
            if any(p in k['name'] for p in LAYOUT):
                lay += k['total_duration_us']
    if nconv:
        if check(pg.layout is not None, f'{label}: layout-conversion total'):
            check(close(pg.layout['data-us'], lay, 1e-6, 1e-6), f'{label}: layout {pg.layout["data-us"]} == {lay} us')
    return pg


def read_png(path):
    """(width, height, distinct colours) of an 8-bit RGB(A) PNG."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'PNG signature'
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, typ = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and ctype in (2, 6), f'depth {depth} colour type {ctype}'
            bpp = 3 if ctype == 2 else 4
        elif typ == b'IDAT':
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ft == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:  # every 4th row is plenty for a colour count
            colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return w, h, len(colours)


def chromium_checks(chrome, out, label, pg):
    url = 'file://' + os.path.abspath(os.path.join(out, 'report.html'))
    png = os.path.join(out, 'shot.png')
    p = subprocess.run([chrome, '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
                        '--window-size=1200,3000', f'--screenshot={png}', url], capture_output=True, text=True,
                       timeout=120)
    if check(p.returncode == 0 and os.path.isfile(png), f'{label}: chromium screenshot ({p.returncode})'):
        w, h, ncol = read_png(png)
        check((w, h) == (1200, 3000), f'{label}: screenshot {w}x{h}')
        check(ncol > 20, f'{label}: screenshot not blank ({ncol} colours)')
    p = subprocess.run([chrome, '--headless', '--no-sandbox', '--disable-gpu', '--dump-dom', url],
                       capture_output=True, text=True, timeout=120)
    dom = Page()
    dom.feed(p.stdout)
    dom.close()
    check(p.returncode == 0 and dom.tags.get('body') == 1, f'{label}: chromium dumps the DOM')
    check([a['data-uid'] for a in dom.circles] == [a['data-uid'] for a in pg.circles],
          f'{label}: the DOM holds the {len(pg.circles)} points')
    check(len(dom.tl) == len(pg.tl) and len(dom.ceils) == len(pg.ceils), f'{label}: timeline and ceilings in the DOM')
    return png


def hostile_copy(example, path):
    """The example with op names holding HTML specials."""
    with gzip.open(example, 'rt', encoding='utf-8') as fh:
        doc = json.load(fh)
    evil = '<b>aten::clamp_min_ & "q" \'s</b>'
    n = 0
    for e in doc['traceEvents']:
        if e.get('name') == 'aten::clamp_min_':
            e['name'] = evil
            n += 1
    with gzip.open(path, 'wt', encoding='utf-8') as fh:
        json.dump(doc, fh)
    return evil, n


def two_device_events():
    """an aten::add launching a kernel on device 0 and one launching on device 1"""
    ev = []
    for i, dev in enumerate((0, 1)):
        ts = 1000 + 100 * i
        ev += [{'ph': 'X', 'cat': 'cpu_op', 'name': 'aten::add', 'pid': 100, 'tid': 100, 'ts': ts, 'dur': 50,
                'args': {'Input Dims': [[64, 64], [64, 64]], 'Input type': ['float', 'float']}},
               {'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': 100, 'tid': 100, 'ts': ts + 1,
                'dur': 2, 'args': {'correlation': i + 1}},
               {'ph': 'X', 'cat': 'kernel', 'name': 'k_add', 'pid': dev, 'tid': 7, 'ts': ts + 5, 'dur': 10,
                'args': {'device': dev, 'stream': 7, 'correlation': i + 1}}]
    return ev


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    exe, example, shared = sys.argv[1:]
    chrome = optional_tool(('chromium', 'chromium-browser'), 'the rendering checks (Debian: chromium)')
    tmp = tempfile.mkdtemp(prefix='jv_html_')
    try:
        # the bundled example
        nb_example = -1
        out = os.path.join(tmp, 'example')
        if analyze(exe, example, out):
            pg = check_page(out, 'example', True)
            if pg and chrome:
                png = chromium_checks(chrome, out, 'example', pg)
                print('screenshot of the example:', png)
            if pg:
                check(len(pg.circles) >= 5, 'example: at least 5 points (its ops have models)')
                nb_example = pg.tags.get('b', 0)
        # op names with HTML specials
        evil_trace = os.path.join(tmp, 'evil.json.gz')
        evil, n = hostile_copy(example, evil_trace)
        check(n > 0, 'hostile copy renames ops')
        out = os.path.join(tmp, 'evil')
        if analyze(exe, evil_trace, out):
            pg = check_page(out, 'escaping', True)
            raw = open(os.path.join(out, 'report.html'), encoding='utf-8').read()
            if pg:
                check(pg.tags.get('b', 0) == nb_example, f'escaping: no <b> element from an op name ({pg.tags.get("b")})')
                check('<b>aten::clamp' not in raw, 'escaping: no raw <b> from an op name')
                check(evil in ''.join(pg.texts), 'escaping: the name reads back intact')
                check('&lt;b&gt;aten::clamp_min_ &amp; &quot;q&quot; &#39;s&lt;/b&gt;' in raw, 'escaping: entities')

        # kernels on two devices: the header says they are merged, and how many
        two = os.path.join(tmp, 'two_devices.json')
        with open(two, 'w') as f:
            json.dump({'deviceProperties': [{'id': i, 'name': 'NVIDIA H100 80GB HBM3'} for i in range(8)],
                       'traceEvents': two_device_events()}, f)
        out = os.path.join(tmp, 'two_devices')
        if analyze(exe, two, out):
            raw = open(os.path.join(out, 'report.html'), encoding='utf-8').read()
            check('(2 devices with GPU work, merged)' in raw, 'two devices: the header says 2 are merged')

        traces = os.path.join(shared, 'traces')
        if not os.path.isdir(traces):
            skip_part(f'fixture part: {traces} missing')
            return finish()

        cases = [
            ('amd_mi300x_resnet18_train', (), True),
            ('nv_h100_qwen15_05b_infer', (), True),
            ('nv_sampled_w128_rank0', (), False),
            ('nv_h100_bert_small_infer', ('--gpu-arch', 'none'), False),
            ('amd_mi210_gpu_only', (), True),
        ]
        pages = {}
        for name, extra, hw in cases:
            out = os.path.join(tmp, name + ('_nohw' if extra else ''))
            if not analyze(exe, os.path.join(traces, name + '.json.gz'), out, *extra):
                continue
            pg = check_page(out, name, hw)
            if pg:
                pages[name] = (out, pg)
                if chrome and name in ('amd_mi300x_resnet18_train', 'nv_sampled_w128_rank0'):
                    chromium_checks(chrome, out, name, pg)

        # facts of the fixtures
        if 'amd_mi300x_resnet18_train' in pages:
            out, pg = pages['amd_mi300x_resnet18_train']
            cats = {c.get('data-cat'): float(c['data-us']) for c in pg.cats}
            check(abs(cats['convolution'] / 1e3 - 160.9) < 0.1 and abs(cats['batchnorm'] / 1e3 - 155.6) < 0.1,
                  f'MI300X ResNet-18: conv 160.9 ms, BN 155.6 ms ({cats})')
            check(float(pg.layout['data-us']) > 10000, 'MI300X ResNet-18: transposes inside convolutions > 10 ms')
            check({a['data-cat'] for a in pg.circles} >= {'convolution', 'batchnorm'},
                  'MI300X ResNet-18: conv and BN points')
            check(any(c for c in pg.ceils), 'MI300X ResNet-18: ceilings drawn')
            # deviceProperties lists the node's 8 GPUs; every kernel ran on device 2: no "merged" devices claimed
            raw = open(os.path.join(out, 'report.html'), encoding='utf-8').read()
            check('merged' not in raw.split('</header>')[0], 'MI300X ResNet-18: one device with GPU work, none merged')
        if 'nv_h100_qwen15_05b_infer' in pages:
            out, pg = pages['nv_h100_qwen15_05b_infer']
            check('Qwen2RMSNorm' in ''.join(pg.texts), 'H100 Qwen: Qwen2RMSNorm fusion candidate listed')
            # the first screen: the fair report's first three recommendations, in its order and words
            raw = open(os.path.join(out, 'report.html'), encoding='utf-8').read()
            fair = open(os.path.join(out, 'standalone_analysis_fair.md'), encoding='utf-8').read()
            sec = re.search(r'<section id="recommendations">(.*?)</section>', raw, re.S)
            shown = [html.unescape(t) for t in re.findall(r'<li><b>(.*?)</b>', sec.group(1))] if sec else []
            stated = re.findall(r'^### \d+\. (.*)$', fair, re.M)[:3]
            check(sec is not None and raw.index('id="recommendations"') < raw.index('id="timeline"'),
                  'H100 Qwen: the recommendations come before the timeline')
            check(shown and shown == stated, 'H100 Qwen: the HTML shows the fair report\'s first recommendations',
                  shown, stated)
            confs = re.findall(r'Confidence: (high|medium|low): ', sec.group(1)) if sec else []
            check(len(confs) == len(shown), 'H100 Qwen: each recommendation on the first screen has its confidence',
                  confs)
            # issue 19 item 3: the peak policy at the top; item 6: the unlinked time in the header, MiB said
            head = raw.split('</header>')[0]
            check('<dt>Peak policy</dt><dd class="policy">datasheet peaks (H100 SXM: ' in head,
                  'H100 Qwen: the header states the peak policy')
            q = re.search(r'<dl class="facts" id="trace-quality">.*?</dl>', head, re.S)
            unl = re.search(r'^\| GPU events with no launcher \| (\d+) of (\d+) \| ([\d.]+) \|', fair, re.M)
            check(q is not None and unl is not None and
                  '%s of %s GPU events with no launcher, %.2f ms of GPU time' %
                  (unl.group(1), unl.group(2), float(unl.group(3)) / 1e3) in q.group(0),
                  'H100 Qwen: the header\'s trace-quality line shows the unlinked events\' GPU time',
                  q.group(0)[:300] if q else None)
            mod = re.search(r'Modelled rows \(FLOPs or bytes known\): (\d+) of (\d+), ([\d.]+) % of kernel time', fair)
            check(q is not None and mod is not None and
                  '%s of %s rows modelled (%s %% of kernel time)' % mod.groups() in q.group(0),
                  'H100 Qwen: the header shows the modelled share of kernel time')
            check('holds MiB (2<sup>20</sup> bytes)' in raw, 'H100 Qwen: Data Moved (MB) said to hold MiB')
        if 'nv_sampled_w128_rank0' in pages:
            out, pg = pages['nv_sampled_w128_rank0']
            check(not pg.ceils and 'none' in ''.join(pg.texts), 'sampled trace: no roofline GPU, no ceilings')

        # graph-replayed kernels: labels show the kernel (after "hipGraphLaunch->", no "void", no arguments, template
        # arguments as <…>), the title keeps the whole name
        out = os.path.join(tmp, 'sglang')
        if analyze(exe, os.path.join(traces, 'amd_mi300x_sglang_qwen3_8b_decode.json.gz'), out):
            raw = open(os.path.join(out, 'report.html'), encoding='utf-8').read()
            shown = re.findall(r'<text x="30"[^>]*>([^<]*)', raw) + re.findall(r'<td title="[^"]*">([^<]*)', raw)
            check(shown and not any(t.startswith('hipGraphLaunch') or t.startswith('void ') for t in shown),
                  'sglang: no label starts with the launch call or a return type', shown[:4])
            check(any(t.startswith('paged_attention_ll4mi_QKV_mfma16_kernel') for t in shown),
                  'sglang: the paged-attention kernel named by its own name', shown[:6])
            check(any(t.startswith('at::native::') and t.endswith('&lt;…&gt;') for t in shown),
                  'sglang: template arguments shown as <…>', shown[:8])
            check('title="hipGraphLaunch-&gt;void paged_attention_ll4mi_QKV_mfma16_kernel&lt;' in raw or
                  'hipGraphLaunch-&gt;void paged_attention' in raw, 'sglang: the full name kept in a title')

        # a reference trace: both sides' numbers equal their own CSVs
        tgt, ref = 'nv_h100_bert_small_infer', 'amd_mi300xvf_bert_small_infer'
        out, rout = os.path.join(tmp, 'cmp'), os.path.join(tmp, 'cmp_ref_alone')
        if analyze(exe, os.path.join(traces, tgt + '.json.gz'), out, '--reference',
                   os.path.join(traces, ref + '.json.gz')) and analyze(exe, os.path.join(traces, ref + '.json.gz'), rout):
            pg = check_page(out, 'compare', True)
            if pg:
                check('compare' in pg.ids, 'compare: the reference section')
                text = ''.join(pg.texts)
                check(tgt + '.json.gz' in text and ref + '.json.gz' in text, 'compare: both trace names')
                kt = [a for c, a in pg.cmp if c == 'cmp-ktime']
                sums = [sum(num(r['Kernel Time (µs)_sum']) for r in expected_rows(o)) for o in (out, rout)]
                check(len(kt) == 2 and all(close(a['data-us'], s, 1e-9) for a, s in zip(kt, sums)),
                      f'compare: kernel time of both sides {sums}')
                rtl = {r['type']: r for r in read_csv(os.path.join(rout, 'perf_report_csvs', 'gpu_timeline.csv'))}
                rr = [a for c, a in pg.cmp if c == 'cmp-tl-ref']
                check(len(rr) == 4 and all(close(a['data-ms'], rtl[a['data-type']]['time ms'], 1e-12) for a in rr),
                      'compare: the reference timeline equals its own gpu_timeline.csv')
    finally:
        if os.environ.get('JV_KEEP'):
            print('outputs kept in', tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
