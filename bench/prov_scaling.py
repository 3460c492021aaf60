#!/usr/bin/env python3
"""PROV-JSON documents that made the import quadratic (docs/BENCHMARKS.md, "Linear PROV-JSON
imports"): N entities whose prefix no `prefix` declares (each rejected with its line), and P
prefixes with B bundles of one entity each. Writes them into the folder given."""
import json
import sys

out = sys.argv[1]
for n in (10_000, 40_000, 100_000):
    doc = {"prefix": {"ex": "http://example.org/"},
           "entity": {f"undeclared:e{i}": {"prov:label": f"entity {i}"} for i in range(n)}}
    with open(f"{out}/undeclared-{n}.json", "w") as f:
        json.dump(doc, f, indent=1)
for p, b in ((5_000, 5_000), (10_000, 10_000), (20_000, 20_000)):
    doc = {"prefix": {f"p{i}": f"http://example.org/{i}/" for i in range(p)},
           "bundle": {f"p{i % p}:b{i}": {"entity": {f"p{i % p}:e{i}": {}}} for i in range(b)}}
    with open(f"{out}/bundles-{p}x{b}.json", "w") as f:
        json.dump(doc, f, indent=1)
