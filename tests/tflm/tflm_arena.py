#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""TFLite Micro's own arena figures for a model, the ground truth of
tests/integration/test_plan_tflm.sh: tflite-micro's Python interpreter (its
RecordingMicroAllocator) allocates the model's tensors in a 64 MiB arena, and
print_allocations() says the head (the memory planner's non-persistent section) and the
tail (the persistent section) it used. Prints "head=N tail=M", or on stderr why TFLM
refused the model (exit 1).

usage: tflm_arena.py MODEL.tflite
"""
import os
import re
import sys
import tempfile


def main():
    from tflite_micro.python.tflite_micro import runtime

    path = sys.argv[1]
    # the allocator prints to the process's stderr (fd 2), not Python's
    with tempfile.TemporaryFile(mode="w+b") as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            it = runtime.Interpreter.from_file(path, arena_size=64 << 20)
            it.print_allocations()
            ok = True
        except RuntimeError:
            ok = False
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
    head = re.search(r"Arena allocation head (\d+) bytes", text)
    tail = re.search(r"Arena allocation tail (\d+) bytes", text)
    if not ok or not head or not tail:
        why = [l for l in text.splitlines() if l.strip()][:2]
        sys.stderr.write("TFLM refused it: %s\n" % " / ".join(why))
        return 1
    print("head=%s tail=%s" % (head.group(1), tail.group(1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
