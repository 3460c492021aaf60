"""Reads Provex's PROV exports back with the W3C PROV reference library (`prov`) and rdflib.

Usage: check_export.py DIR   (DIR holds export.prov-json, .prov-n, .prov-o-turtle,
.prov-o-jsonld). Prints one JSON object: for each format, what the libraries read (records,
relations, triples), and for PROV-N, which `prov` cannot read, whether its statements are the
ones `prov` itself writes for the PROV-JSON document. Exits 1 when a library fails to read.
"""

import json
import re
import sys
from pathlib import Path

import rdflib
from prov.model import ProvDocument

HEAD = re.compile(r"^\s*(\w+)\(([^,\[\)]+)(?:,\s*([^,\[\)]+))?")


def counts(doc):
    recs = doc.get_records()
    elements = [r for r in recs if r.is_element()]
    relations = {(type(r).__name__, str(a[0][1]) if a else "", str(a[1][1]) if len(a) > 1 else "")
                 for r in recs if r.is_relation() for a in [r.formal_attributes]}
    return {"records": len(elements), "relations": sum(1 for r in recs if r.is_relation()),
            "distinct_relations": len(relations)}


def heads(provn):
    out = set()
    for line in provn.splitlines():
        m = HEAD.match(line)
        if m and m.group(1) not in ("document", "endDocument", "prefix"):
            out.add((m.group(1), m.group(2).strip(), (m.group(3) or "").strip()))
    return out


def main():
    d = Path(sys.argv[1])
    out = {}
    doc = ProvDocument.deserialize(str(d / "export.prov-json"), format="json")
    out["prov-json"] = counts(doc)
    # The document survives a round trip through prov's own PROV-JSON.
    again = ProvDocument.deserialize(content=doc.serialize(format="json"), format="json")
    out["prov-json"]["round_trip_equal"] = again.unified() == doc.unified()
    ours = heads((d / "export.prov-n").read_text())
    theirs = heads(doc.get_provn())
    out["prov-n"] = {"statements": len(ours), "same_as_prov_writes": ours == theirs,
                     "only_ours": sorted(ours - theirs)[:5], "only_prov": sorted(theirs - ours)[:5]}
    for name, fmt in (("prov-o-turtle", "turtle"), ("prov-o-jsonld", "json-ld")):
        g = rdflib.Graph()
        g.parse(str(d / f"export.{name}"), format=fmt)
        rdoc = ProvDocument.deserialize(str(d / f"export.{name}"), format="rdf", rdf_format=fmt)
        out[name] = {"triples": len(g), **counts(rdoc)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
