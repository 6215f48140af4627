#!/usr/bin/env python3
"""Write the small generated models of tests/models, kinds no real bundled model has.

Usage:
    gen_models.py OUTDIR

Run it with the Python that has ai-edge-litert (its bundled schema module builds the
flatbuffers; /opt/arenaprof-venv/bin/python). The output is deterministic: the same
bytes on every run, so tests/models keeps the files and test_litert_plan.sh checks
that this script still writes them. LiteRT itself judges every one of them.

    gen_hybrid_conv.tflite       dynamic-range quantization: float32 activations,
                                 int8 filters (CONV_2D per channel and per tensor,
                                 DEPTHWISE_CONV_2D, FULLY_CONNECTED)
    gen_float16_weights.tflite   float16 constants behind DEQUANTIZE into CONV_2D
    gen_resource_vars.tflite     VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, with
                                 CALL_ONCE running an init subgraph
    gen_while_loop.tflite        WHILE with cond and body subgraphs
    gen_if_else.tflite           IF with then and else subgraphs
    gen_svdf.tflite              SVDF in float and hybrid (int8 weights), as in
                                 keyword-spotting models
    gen_add_n.tflite             ADD_N of five tensors: a scratch sized by the
                                 thread count
    gen_rnn.tflite               RNN and UNIDIRECTIONAL_SEQUENCE_RNN, float and
                                 hybrid (int8 weights)
    gen_lstm.tflite              LSTM (the full kernel, one step): float with and
                                 without CIFG, and hybrid
    gen_bidi_rnn.tflite          BIDIRECTIONAL_SEQUENCE_RNN, float (merged outputs)
                                 and hybrid (two outputs)
    gen_bidi_lstm.tflite         BIDIRECTIONAL_SEQUENCE_LSTM, float, time major and
                                 not, with CIFG on one side
    gen_bidi_lstm_hybrid.tflite  BIDIRECTIONAL_SEQUENCE_LSTM, hybrid (int8 weights),
                                 projected, without and with an aux input
    gen_lstm_basic.tflite        LSTM, the basic kernel: its state inputs made
                                 persistent
    gen_lstm_integer.tflite      LSTM, the full kernel, int8 input: 5 and 12
                                 intermediates
    gen_conv3d.tflite            CONV_3D with a 3x3x3 filter and a strided 1x1x1
                                 one: im2col both times
    gen_dynamic_tile.tflite      TILE of computed multiples: a dynamic output that
                                 splits LiteRT's plan in two steps
    gen_dynamic_shapes.tflite    TRANSPOSE, PAD, RESIZE_BILINEAR, BROADCAST_TO,
                                 SPLIT and FILL of computed shapes: seven steps
    gen_dynamic_ops.tflite       27 more operators whose outputs a computed input
                                 makes dynamic (slices, RANGE, reductions, pads,
                                 NMS, WHERE, UNIQUE, TRANSPOSE_CONV, ...), and two
                                 that stay static (offset STRIDED_SLICE, SLICE
                                 of a given shape)
    gen_dynamic_edges.tflite     the special cases: PAD and PADV2 of a scalar, TOPK_V2 and
                                 SLICE of unknown dims, offset STRIDED_SLICE of computed
                                 strides, dyn data into UNSORTED_SEGMENT_MAX, the
                                 random kernels, EMBEDDING_LOOKUP_SPARSE, DILATE
                                 of ro dilations, the other reductions,
                                 CONV_3D_TRANSPOSE (heap col2im, dyn output),
                                 READ_VARIABLE of a scalar
    gen_detection_postprocess.tflite
                                 an SSD head ending in the custom operator
                                 TFLite_Detection_PostProcess
    gen_const_fold.tflite        outputs LiteRT folds at Prepare into the heap:
                                 SHAPE, RANK, STRIDED_SLICE of a shape, GATHER,
                                 CONCATENATION and RESHAPE of constants, a small
                                 REDUCE_PROD of constants
    gen_dynamic_reshape.tflite   RESHAPE of computed shapes: shared, or an arena slot
                                 that turns dynamic; and to a scalar by an empty shape
    gen_open_shapes.tflite       shapes the file leaves open (signature -1), given by
                                 the input shape and computed shape values
    gen_rfft2d.tflite            RFFT2D of a constant fft_length (4 arena working
                                 areas) and of a computed one (dynamic)
    gen_numeric_verify.tflite    the custom NumericVerify: a persistent output
    gen_stablehlo_reduce_window.tflite
                                 STABLEHLO_REDUCE_WINDOW: padded and dilated copies
    gen_stablehlo_composite.tflite
                                 STABLEHLO_COMPOSITE: its decomposition planned as
                                 an IF branch is
    gen_fc_int4.tflite           FULLY_CONNECTED with int4 filters: the 4-bit path and
                                 the standard hybrid one (cols < 32)
    gen_fc_sparse.tflite         FULLY_CONNECTED with sparse (CSR) filters, float and
                                 hybrid (its ledger)
    gen_lstm_sparse.tflite       LSTM, the full kernel, hybrid with 1x16 block-sparse
                                 weights: its 9 ledgers, with and without CIFG
    gen_stablehlo_case.tflite    STABLEHLO_CASE: every subgraph planned in its Prepare,
                                 listed as a branch or not; subgraph 0's unused input
                                 dropped
    gen_if_dynamic.tflite        IF whose then branch holds a dynamic tensor: its
                                 output dynamic
    gen_while_dynamic.tflite     WHILE whose body holds a dynamic tensor: its outputs
                                 dynamic
    gen_composite_dynamic.tflite STABLEHLO_COMPOSITE whose decomposition holds a
                                 dynamic tensor: its output dynamic
    gen_if_shapes.tflite         IF whose branches give other static shapes: its
                                 output dynamic
    gen_if_resize.tflite         IF, WHILE and STABLEHLO_COMPOSITE whose subgraphs give
    gen_while_resize.tflite      other output shapes than the caller's file says: the
    gen_composite_resize.tflite  outputs resized, and what is computed from them
    gen_flow_inputs.tflite       IF, WHILE and STABLEHLO_COMPOSITE whose subgraphs' file
                                 shapes are not the caller's: prepared on the caller's
    gen_while_scalar.tflite      WHILE whose body turns its scalar counter into [1]:
                                 while.cc lets it pass, its outputs stay in the arena
    gen_case_resize.tflite       STABLEHLO_CASE prepared on caller shapes other than its
                                 subgraphs' file: its output resized
    gen_case_dynamic.tflite      STABLEHLO_CASE with a dynamic subgraph, and one whose
    gen_case_shapes.tflite       compared branch gives other dims: its output dynamic
    gen_while_late.tflite        WHILE, IF (a constant condition),
    gen_if_late.tflite           STABLEHLO_COMPOSITE and STABLEHLO_CASE (a constant
    gen_composite_late.tflite    index) after a dynamic output: prepared, and their
    gen_case_late.tflite         subgraphs planned, in the first invoke
"""

import os
import sys

from gen_builder import *  # noqa: F401,F403
from gen_dynamic import *  # noqa: F401,F403
from gen_flow import *  # noqa: F401,F403
from gen_ops import *  # noqa: F401,F403
from gen_rnn import *  # noqa: F401,F403
from gen_sparse import *  # noqa: F401,F403


MODELS = {
    "gen_hybrid_conv.tflite": hybrid_conv,
    "gen_float16_weights.tflite": float16_weights,
    "gen_resource_vars.tflite": resource_vars,
    "gen_while_loop.tflite": while_loop,
    "gen_const_fold.tflite": const_fold,
    "gen_if_else.tflite": if_else,
    "gen_svdf.tflite": svdf,
    "gen_add_n.tflite": add_n,
    "gen_rnn.tflite": rnn,
    "gen_lstm.tflite": lstm,
    "gen_bidi_rnn.tflite": bidi_rnn,
    "gen_bidi_lstm.tflite": bidi_lstm,
    "gen_bidi_lstm_hybrid.tflite": bidi_lstm_hybrid,
    "gen_lstm_basic.tflite": lstm_basic,
    "gen_lstm_integer.tflite": lstm_integer,
    "gen_conv3d.tflite": conv3d,
    "gen_detection_postprocess.tflite": detection_postprocess,
    "gen_dynamic_tile.tflite": dynamic_tile,
    "gen_dynamic_reshape.tflite": dynamic_reshape,
    "gen_open_shapes.tflite": open_shapes,
    "gen_dynamic_shapes.tflite": dynamic_shapes,
    "gen_dynamic_ops.tflite": dynamic_ops,
    "gen_dynamic_edges.tflite": dynamic_edges,
    "gen_rfft2d.tflite": rfft2d,
    "gen_numeric_verify.tflite": numeric_verify,
    "gen_stablehlo_reduce_window.tflite": stablehlo_reduce_window,
    "gen_stablehlo_composite.tflite": stablehlo_composite,
    "gen_fc_int4.tflite": fc_int4,
    "gen_fc_sparse.tflite": fc_sparse,
    "gen_lstm_sparse.tflite": lstm_sparse,
    "gen_stablehlo_case.tflite": stablehlo_case,
    "gen_if_dynamic.tflite": if_dynamic,
    "gen_while_dynamic.tflite": while_dynamic,
    "gen_composite_dynamic.tflite": composite_dynamic,
    "gen_if_shapes.tflite": if_shapes,
    "gen_if_resize.tflite": if_resize,
    "gen_while_resize.tflite": while_resize,
    "gen_composite_resize.tflite": composite_resize,
    "gen_flow_inputs.tflite": flow_inputs,
    "gen_while_scalar.tflite": while_scalar,
    "gen_case_resize.tflite": case_resize,
    "gen_case_dynamic.tflite": case_dynamic,
    "gen_case_shapes.tflite": case_shapes,
    "gen_while_late.tflite": while_late,
    "gen_if_late.tflite": if_late,
    "gen_composite_late.tflite": composite_late,
    "gen_case_late.tflite": case_late,
}


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_models.py OUTDIR\n")
        return 2
    for name, gen in MODELS.items():
        gen(os.path.join(argv[1], name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
