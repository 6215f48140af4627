#!/usr/bin/env python3
"""Control-flow models arenaprof must name as not modelled (test_plan.sh).

Usage: flow_variants.py MODELS_DIR OUTDIR

Rewrites bundled models (tests/models, written by gen_models.py) into OUTDIR:
    while_grows.tflite  gen_while_loop whose body's x_next is [1, 33]: the loop
                        grows its variable, so LiteRT makes WHILE's outputs dyn
    if_shared.tflite    gen_if_else whose IF runs subgraph 1 as both branches
    case_short.tflite   gen_stablehlo_case with branch indices [1, 2, 3]: its Prepare
                        reads index 3, past them (both LiteRTs crash)
    case_grows.tflite   gen_stablehlo_case whose listed branch 2 writes its output
                        [1, 65]: shapes other than the caller's
Needs the Python that has ai-edge-litert (its schema module), as gen_models.py.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_models as G  # noqa: E402

fb = G.fb


def load(path):
    with open(path, "rb") as f:
        return fb.ModelT.InitFromPackedBuf(f.read(), 0)


def write(m, path):
    b = G.flatbuffers.Builder(4096)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    with open(path, "wb") as f:
        f.write(b.Output())


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: flow_variants.py MODELS_DIR OUTDIR\n")
        return 2
    src, out = argv[1], argv[2]
    m = load(os.path.join(src, "gen_while_loop.tflite"))
    m.subgraphs[2].tensors[4].shape = [1, 33]
    write(m, os.path.join(out, "while_grows.tflite"))
    m = load(os.path.join(src, "gen_if_else.tflite"))
    m.subgraphs[0].operators[1].builtinOptions.elseSubgraphIndex = 1
    write(m, os.path.join(out, "if_shared.tflite"))
    m = load(os.path.join(src, "gen_stablehlo_case.tflite"))
    m.subgraphs[0].operators[1].builtinOptions2.branchSubgraphIndices = [1, 2, 3]
    write(m, os.path.join(out, "case_short.tflite"))
    m = load(os.path.join(src, "gen_stablehlo_case.tflite"))
    m.subgraphs[2].tensors[2].shape = [1, 65]
    write(m, os.path.join(out, "case_grows.tflite"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
