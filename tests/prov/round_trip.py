"""PROV-JSON round trips through Provex, judged by the W3C PROV reference library (`prov`).

  round_trip.py make DIR [RANDOM]  writes the documents to import: every PROV-JSON file of
                                   prov's own test suite, prov's example documents, and
                                   RANDOM (default 40) random documents built with prov's
                                   API (its hypothesis strategy, derandomised)
  round_trip.py compare DIR        for each DIR/NAME.json with a DIR/NAME.out.json (what
                                   Provex exported after importing it), whether
                                   ProvDocument.unified() finds the two equal; prints JSON

A document prov itself cannot unify (two records with one id and conflicting formal
attributes) is compared as it is, without unifying.
"""

import json
import shutil
import sys
from pathlib import Path

import prov.tests
from prov.model import ProvDocument


def make(out: Path, random: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    suite = Path(prov.tests.__file__).parent / "json"
    for f in sorted(suite.glob("*.json")):
        shutil.copy(f, out / f"suite-{f.stem}.json")
    from prov.tests.examples import tests as examples

    for i, (_, build) in enumerate(examples):
        (out / f"example-{i}.json").write_text(build().serialize(format="json"))
    if random:
        from hypothesis import HealthCheck, given, settings
        from prov.tests.strategies import prov_documents

        made = []

        @settings(max_examples=random, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(prov_documents())
        def collect(doc):
            made.append(doc.serialize(format="json"))

        collect()
        for i, text in enumerate(made[:random]):
            (out / f"random-{i}.json").write_text(text)


def same(a: ProvDocument, b: ProvDocument) -> bool:
    try:
        return a.unified() == b.unified()
    except Exception:
        return a == b


def compare(d: Path) -> None:
    results = {}
    for f in sorted(d.glob("*.json")):
        if f.name.endswith(".out.json"):
            continue
        out = f.with_name(f.stem + ".out.json")
        if not out.exists():
            continue
        try:
            a = ProvDocument.deserialize(str(f), format="json")
            b = ProvDocument.deserialize(str(out), format="json")
            results[f.stem] = same(a, b)
        except Exception as e:  # a document our export made that prov cannot read
            results[f.stem] = f"error: {e}"
    failed = {k: v for k, v in results.items() if v is not True}
    print(json.dumps({"total": len(results), "equal": len(results) - len(failed), "failed": failed}))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 40)
    else:
        compare(Path(sys.argv[2]))
