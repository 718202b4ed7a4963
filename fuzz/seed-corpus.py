#!/usr/bin/env python3
"""Seeds the corpora of the `pack_load` and `test_file` fuzz targets (corpus/, ignored by git).

pack_load: every vanilla JSON file up to 64 KiB as a one-file pack, and for each vanilla
client entity a pack of it with the manifest, the animations, controllers, render controllers
and geometry it names (files over 64 KiB left out), in the target's format: files separated
by NUL bytes, each a path line then its text. test_file: the repository's `*.test.json` files
and one test per expectation kind.

Usage (from the repository):  python3 fuzz/seed-corpus.py [VANILLA_DIR]
VANILLA_DIR defaults to ../shared/vanilla beside the repository (MOLANG_SHARED_DIR/vanilla
when that is set). Nothing from it is committed: corpora stay local.
"""
import hashlib
import os
import re
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
REPO = FUZZ.parent
MAX_FILE = 64 * 1024
MAX_PACK = 192 * 1024


def vanilla_dir():
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    shared = os.environ.get("MOLANG_SHARED_DIR")
    return Path(shared) / "vanilla" if shared else REPO.parent / "shared" / "vanilla"


def put(folder, data):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def record(rel, data):
    return rel.encode() + b"\n" + data


def main():
    vanilla = vanilla_dir()
    rp = vanilla / "resource_pack"
    if not rp.is_dir():
        sys.exit(f"{rp}: not found (give the vanilla folder as the argument)")
    pack_dir = FUZZ / "corpus" / "pack_load"
    test_dir = FUZZ / "corpus" / "test_file"

    files = sorted(p for p in vanilla.rglob("*.json") if p.is_file())
    singles = 0
    for f in files:
        data = f.read_bytes()
        if len(data) <= MAX_FILE:
            put(pack_dir, record(str(f.relative_to(vanilla)), data))
            singles += 1

    # Definition id → the resource-pack files that define it (a key of the file's JSON).
    defines = {}
    key = re.compile(rb'"((?:animation|controller\.animation|controller\.render|geometry)\.[^"]+)"\s*:')
    ident = re.compile(rb'"identifier"\s*:\s*"(geometry\.[^"]+)"')
    for folder in ("animations", "animation_controllers", "render_controllers", "models"):
        for f in sorted((rp / folder).rglob("*.json")):
            data = f.read_bytes()
            if len(data) > MAX_FILE:
                continue
            for m in list(key.finditer(data)) + list(ident.finditer(data)):
                defines.setdefault(m.group(1).split(b":")[0], []).append(f)
    named = re.compile(rb'"((?:animation|controller\.animation|controller\.render|geometry)\.[^"]+)"')
    manifest = rp / "manifest.json"
    packs = 0
    for e in sorted((rp / "entity").glob("*.json")):
        data = e.read_bytes()
        used = [manifest, e]
        for m in named.finditer(data):
            for f in defines.get(m.group(1).split(b":")[0], [])[:2]:
                if f not in used:
                    used.append(f)
        out = b"\0".join(record(str(f.relative_to(rp)), f.read_bytes()) for f in used)
        if len(out) <= MAX_PACK:
            put(pack_dir, out)
            packs += 1

    tests = 0
    for f in sorted(REPO.rglob("*.test.json")):
        if "target" not in f.parts:
            put(test_dir, f.read_bytes())
            tests += 1
    for t in TESTS:
        put(test_dir, t.encode())
        tests += 1
    print(f"pack_load: {singles} files, {packs} entity packs; test_file: {tests} tests")


# One test per expectation kind and input form (written here, not copied from anywhere).
TESTS = [
    '{"entity": "minecraft:cow", "packs": ["rp"], "expect": [{"at": 1, "bone": "leg0", "rx": 0}]}',
    '{"entity": "cow", "packs": "rp", "fps": 60, "seconds": 2, "seed": 7,\n'
    ' "inputs": {"t": [0, 1, 2], "q.ground_speed": [0, 1, 2], "v.attack_time": 0.5},\n'
    ' "expect": [{"from": 0.5, "to": 1.5, "v.speed_between": [0, 2]}]}',
    '[{"name": "a", "entity": "e", "packs": ["..", "rp"], "inputs": "inputs/walk.csv",\n'
    '  "expect": [{"always": "v.x >= 0"}, {"never": "q.is_on_fire", "from": 1}]},\n'
    ' {"entity": "e", "packs": ["rp"], "expect": [{"no_content_log": true}, {"snapshot": "walk.csv", "tolerance": 0.01}]}]',
    '// comment\n{"entity": "e", "packs": ["rp"], "expect": [{"at": 0.5, "q.anim_time": 0.5, "tolerance": 1e-3},],}',
    '{"entity": "e", "packs": ["rp"], "inputs": {"q.is_baby": 1, "q.property(\'a:b\')": 2}}',
]

if __name__ == "__main__":
    main()
