"""outdiff: which files of two jarvis-analyze output folders differ, byte for byte, the workbooks and replay
packages member by member with their creation time stamps left out (the only bytes two runs of the same trace
may write differently). Shared by the integration tests that compare runs (threads_identical, scan_split)."""
import os
import re
import zipfile


def zip_members(path):
    """the members of a zip (xlsx or replay package) by name, without their creation time stamps"""
    with zipfile.ZipFile(path) as z:
        got = {}
        for n in z.namelist():
            data = z.read(n)
            if n == 'docProps/core.xml':
                data = re.sub(rb'<dcterms:(created|modified)[^<]*</dcterms:\w+>', b'', data)
            if n == 'manifest.json':
                data = re.sub(rb'"created":\s*"[^"]*"', b'', data)
            got[n] = data
        return got


def files(root):
    """every file under root by its path relative to root"""
    out = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = p
    return out


def differences(a, b):
    """the relative paths that are in one folder only or differ between folders a and b, sorted"""
    fa, fb = files(a), files(b)
    diff = sorted(set(fa) ^ set(fb))
    for rel in sorted(set(fa) & set(fb)):
        if rel.endswith(('.xlsx', '.zip')):
            if zip_members(fa[rel]) != zip_members(fb[rel]):
                diff.append(rel)
        else:
            with open(fa[rel], 'rb') as x, open(fb[rel], 'rb') as y:
                if x.read() != y.read():
                    diff.append(rel)
    return diff
