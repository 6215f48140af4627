#!/usr/bin/env python3
"""Control-flow models arenaprof must name as not modelled (test_plan.sh).

Usage: flow_variants.py MODELS_DIR OUTDIR

Rewrites bundled models (tests/models, written by gen_models.py) into OUTDIR:
    while_grows.tflite  gen_while_loop whose body's x_next says [1, 33], unlike its
                        input: LiteRT's ADD sizes it [1, 32] again in the body's
                        Prepare, arenaprof plans subgraphs from the file's shapes
    if_shared.tflite    gen_if_else whose IF runs subgraph 1 as both branches
    if_inputs_unknown.tflite
                        gen_flow_inputs whose then branch runs SPACE_TO_DEPTH, which has
                        no shape function: the branch's shapes on the caller's inputs
                        are not inferred
    if_late.tflite      gen_if_late whose condition is an input: which branch the first
                        invoke runs, and so which plan Eval_static makes again without
                        its output, is the data's
    composite_deep.tflite
                        gen_composite_dynamic with 40 more decompositions nested between
                        the caller and the one with the dynamic tensor: deeper than
                        arenaprof follows (AP_SG_MAX_DEPTH)
    case_short.tflite   gen_stablehlo_case with branch indices [1, 2, 3]: its Prepare
                        reads index 3, past them (both LiteRTs crash)
    case_late.tflite    gen_case_late whose index is an input: which branch the first
                        invoke runs is the data's, as for if_late
    case_grows.tflite   gen_stablehlo_case whose listed branch 2 writes its output
                        [1, 65], which its ADD's Prepare sizes [1, 64] again: the file's
                        static shape is not its kernel's, so the dyn test is not settled
Needs the Python that has ai-edge-litert (its schema module), as gen_models.py.
"""

import copy
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


def choice_from_input(m, is_node):
    """Model m with the constant condition or index of its node is_node picks made an
    input of subgraph 0: which subgraph runs is then the data's."""
    c = next(o for o in m.subgraphs[0].operators if is_node(o)).inputs[0]
    m.subgraphs[0].tensors[c].buffer = 0
    m.subgraphs[0].inputs = [c] + list(m.subgraphs[0].inputs)
    return m


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
    m = load(os.path.join(src, "gen_flow_inputs.tflite"))
    code = fb.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = fb.BuiltinOperator.SPACE_TO_DEPTH
    code.version = 1
    m.operatorCodes.append(code)
    m.subgraphs[1].operators[0].opcodeIndex = len(m.operatorCodes) - 1
    write(m, os.path.join(out, "if_inputs_unknown.tflite"))
    for name, is_node in (
            ("if_late", lambda o: isinstance(o.builtinOptions, fb.IfOptionsT)),
            ("case_late", lambda o: isinstance(o.builtinOptions2, fb.StablehloCaseOptionsT))):
        write(choice_from_input(load(os.path.join(src, "gen_%s.tflite" % name)), is_node),
              os.path.join(out, name + ".tflite"))
    m = load(os.path.join(src, "gen_composite_dynamic.tflite"))
    dec = m.subgraphs.pop()
    # subgraph k runs k + 1 through a copy of subgraph 0's composite, 40 deep
    for k in range(1, 41):
        sg = copy.deepcopy(m.subgraphs[0])
        sg.operators[1].builtinOptions2.decompositionSubgraphIndex = k + 1
        m.subgraphs.append(sg)
    m.subgraphs.append(dec)
    write(m, os.path.join(out, "composite_deep.tflite"))
    m = load(os.path.join(src, "gen_stablehlo_case.tflite"))
    m.subgraphs[0].operators[1].builtinOptions2.branchSubgraphIndices = [1, 2, 3]
    write(m, os.path.join(out, "case_short.tflite"))
    m = load(os.path.join(src, "gen_stablehlo_case.tflite"))
    m.subgraphs[2].tensors[2].shape = [1, 65]
    write(m, os.path.join(out, "case_grows.tflite"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
