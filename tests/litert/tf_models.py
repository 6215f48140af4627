#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Control-flow models as TensorFlow's own converter writes them, for tests/models.

Usage: tf_models.py OUTDIR

Needs tensorflow-cpu (2.21.0 wrote the committed files; pip install tensorflow-cpu in a
venv of its own). CI does not run it: TensorFlow is too large to install there, so the
files are committed and LiteRT judges them like the others (test_litert_plan.sh). Unlike
gen_models.py, which writes flatbuffers by hand, these are what users' models look like:
WHILE and IF as the converter lowers tf.while_loop, tf.cond and Keras recurrent layers.
"""
import os
import sys

import tensorflow as tf


def save(outdir, name, fn, specs):
    conc = fn.get_concrete_function(*specs)
    conv = tf.lite.TFLiteConverter.from_concrete_functions([conc], fn)
    with open(os.path.join(outdir, name + ".tflite"), "wb") as f:
        f.write(conv.convert())


@tf.function
def while_static(x):
    """A loop of fixed shape: cond and body planned once, in WHILE's Prepare."""
    def body(i, x):
        return i + 1, tf.nn.relu(x * 2.0 + 1.0)
    _, y = tf.while_loop(lambda i, x: i < 5, body, [tf.constant(0), x])
    return y


@tf.function
def while_grow(x):
    """The loop variable doubles each turn: the body's output shape is not its input's."""
    def body(i, x):
        return i + 1, tf.concat([x, x * 0.5], axis=1)
    _, y = tf.while_loop(lambda i, x: i < 3, body, [tf.constant(0), x],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([1, None])])
    return y


@tf.function
def while_batch(x):
    """A loop over a batch the file leaves open (-1)."""
    def body(i, x):
        return i + 1, tf.tanh(tf.matmul(x, tf.ones([8, 8])))
    _, y = tf.while_loop(lambda i, x: i < 4, body, [tf.constant(0), x])
    return y


@tf.function
def cond_diff(p, x):
    """Branches whose outputs differ in shape: IF's outputs are dynamic."""
    return tf.cond(p[0] > 0, lambda: tf.concat([x, x], axis=1), lambda: x * 3.0)


@tf.function
def cond_same(p, x):
    """Branches of one output shape, one with a larger arena of its own."""
    def tiled():
        y = tf.tile(x, [1, 4])
        return tf.reduce_sum(tf.reshape(y, [1, 4, 32]), axis=1)
    return tf.cond(p[0] > 0, tiled, lambda: x * 3.0)


@tf.function
def cond_pass(p, x, y):
    """Each branch returns one of its inputs as it is: RemoveUnusedInputs keeps it."""
    return tf.cond(p[0] > 0, lambda: (x, y * 2.0), lambda: (x * 3.0, y))


def gru_model():
    """A Keras GRU: the converter writes a WHILE whose body passes loop variables
    through that nobody reads after the loop."""
    tf.keras.utils.set_random_seed(0)
    inp = tf.keras.Input([10, 6], batch_size=1)
    model = tf.keras.Model(inp, tf.keras.layers.GRU(12)(inp))

    @tf.function
    def gru(x):
        return model(x)
    return gru


def keras_fn(layer, shape):
    """A one-layer Keras model as a tf.function, seeded."""
    tf.keras.utils.set_random_seed(0)
    inp = tf.keras.Input(shape, batch_size=1)
    model = tf.keras.Model(inp, layer(inp))

    @tf.function
    def fn(x):
        return model(x)
    return fn


def save_dr(outdir, name, fn, specs):
    """Dynamic-range quantized: int8 weights, float activations."""
    conc = fn.get_concrete_function(*specs)
    conv = tf.lite.TFLiteConverter.from_concrete_functions([conc], fn)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    with open(os.path.join(outdir, name + ".tflite"), "wb") as f:
        f.write(conv.convert())


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: tf_models.py OUTDIR\n")
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    f32 = tf.float32
    save(out, "tf_while_static", while_static, [tf.TensorSpec([1, 64], f32)])
    save(out, "tf_while_grow", while_grow, [tf.TensorSpec([1, 16], f32)])
    save(out, "tf_while_batch", while_batch, [tf.TensorSpec([None, 8], f32)])
    save(out, "tf_cond_diff", cond_diff, [tf.TensorSpec([1], f32), tf.TensorSpec([1, 32], f32)])
    save(out, "tf_cond_same", cond_same, [tf.TensorSpec([1], f32), tf.TensorSpec([1, 32], f32)])
    save(out, "tf_cond_pass", cond_pass, [tf.TensorSpec([1], f32), tf.TensorSpec([1, 32], f32),
                                          tf.TensorSpec([1, 16], f32)])
    save(out, "tf_gru", gru_model(), [tf.TensorSpec([1, 10, 6], f32)])
    # return_sequences: the body writes a tensor list, a dynamic tensor, so WHILE's
    # outputs are dyn and LiteRT plans the rest of subgraph 0 in the first invoke
    save(out, "tf_simplernn_seq",
         keras_fn(tf.keras.layers.SimpleRNN(8, return_sequences=True), [15, 4]),
         [tf.TensorSpec([1, 15, 4], f32)])
    save_dr(out, "tf_gru_seq_dr",
            keras_fn(tf.keras.layers.GRU(16, return_sequences=True), [20, 8]),
            [tf.TensorSpec([1, 20, 8], f32)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
