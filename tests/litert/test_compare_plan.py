#!/usr/bin/env python3
"""Unit tests of compare_plan.py on synthetic CSVs (no LiteRT, no arenaprof).

Run: python3 tests/litert/test_compare_plan.py
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "compare_plan.py")

LITERT = """tensor,name,offset,size
0,input,0,784
16,q,832,784
24,lstm,1664,560
25,reshape,1664,560
29,<temporary node=1 op=UNIDIRECTIONAL_SEQUENCE_LSTM #0>,2240,80
# model=toy.tflite tensors_in_model=29
# arena_bytes=2320
"""

ARENAPROF_OK = """tensor,name,offset,size,first_node,last_node,kind
0,input,0,784,0,-1,input
1,w,-1,8,-1,-1,weights
16,q,832,784,0,1,arena
17,state,0,20,0,-1,variable
24,lstm,1664,560,1,3,arena
25,reshape,1664,560,2,5,output
29,<temporary node=1 op=UNIDIRECTIONAL_SEQUENCE_LSTM #0>,2240,80,1,1,arena
19,intermediate,0,0,-1,-1,unplanned
"""


def run(litert, arenaprof, *opts):
    with tempfile.TemporaryDirectory() as d:
        lp = os.path.join(d, "toy.litert.csv")
        ap = os.path.join(d, "toy.arenaprof.csv")
        if litert is not None:
            with open(lp, "w") as f:
                f.write(litert)
        if arenaprof is not None:
            with open(ap, "w") as f:
                f.write(arenaprof)
        p = subprocess.run([sys.executable, SCRIPT, *opts, lp, ap],
                           capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


class CompareTest(unittest.TestCase):
    def test_full_match(self):
        rc, out, err = run(LITERT, ARENAPROF_OK)
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(out.splitlines()[0],
                         "toy: 5/5 tensors match (100.0%), "
                         "arena litert=2320 arenaprof=2320")

    def test_offset_mismatch(self):
        bad = ARENAPROF_OK.replace("16,q,832,784", "16,q,896,784")
        rc, out, _ = run(LITERT, bad)
        self.assertEqual(rc, 1)
        self.assertIn("4/5 tensors match (80.0%)", out)
        self.assertIn("tensor 16 'q': litert offset=832 size=784, "
                      "arenaprof offset=896 size=784 kind=arena", out)

    def test_size_mismatch_and_arena(self):
        bad = ARENAPROF_OK.replace("2240,80,1,1", "2240,96,1,1")
        rc, out, _ = run(LITERT, bad)
        self.assertEqual(rc, 1)
        self.assertIn("arena litert=2320 arenaprof=2336", out)
        self.assertIn("arena size differs", out)

    def test_missing_temporary(self):
        bad = "\n".join(ln for ln in ARENAPROF_OK.splitlines()
                        if not ln.startswith("29,")) + "\n"
        rc, out, _ = run(LITERT, bad)
        self.assertEqual(rc, 1)
        self.assertIn("4/5", out)
        self.assertIn("arenaprof: no such tensor", out)
        # Leaving temporaries out of the count does not hide the arena size.
        rc, out, _ = run(LITERT, bad, "--ignore-temporaries")
        self.assertEqual(rc, 1)
        self.assertIn("4/4 tensors match (100.0%), arena litert=2320 "
                      "arenaprof=2224", out)

    def test_not_in_normal_arena(self):
        bad = ARENAPROF_OK.replace("24,lstm,1664,560,1,3,arena",
                                   "24,lstm,-1,560,1,3,dynamic")
        rc, out, _ = run(LITERT, bad)
        self.assertEqual(rc, 1)
        self.assertIn("(not in the normal arena)", out)

    def test_extra_tensor(self):
        bad = ARENAPROF_OK + "40,extra,0,64,2,2,arena\n"
        rc, out, _ = run(LITERT, bad)
        self.assertEqual(rc, 1)
        self.assertIn("5/5 tensors match", out)
        self.assertIn("tensor 40 'extra': not in litert's normal arena", out)

    def test_arena_comment_wins(self):
        rc, out, _ = run(LITERT, ARENAPROF_OK + "# arena_bytes=4096\n")
        self.assertEqual(rc, 1)
        self.assertIn("arenaprof=4096", out)

    def test_lifetimes(self):
        lit = LITERT.replace("tensor,name,offset,size",
                             "tensor,name,offset,size,first_node,last_node")
        lit = lit.replace("0,input,0,784", "0,input,0,784,0,2147483647")
        lit = lit.replace("16,q,832,784", "16,q,832,784,0,1")
        lit = lit.replace("24,lstm,1664,560", "24,lstm,1664,560,1,3")
        lit = lit.replace("25,reshape,1664,560", "25,reshape,1664,560,2,"
                          "2147483647")
        lit = lit.replace("2240,80", "2240,80,1,1")
        ap = ARENAPROF_OK.replace("0,input,0,784,0,-1", "0,input,0,784,0,inf")
        ap = ap.replace("25,reshape,1664,560,2,5", "25,reshape,1664,560,2,")
        rc, out, _ = run(lit, ap, "--lifetimes")
        self.assertEqual(rc, 0, out)
        ap2 = ap.replace("16,q,832,784,0,1", "16,q,832,784,0,2")
        rc, out, _ = run(lit, ap2, "--lifetimes")
        self.assertEqual(rc, 1)
        self.assertIn("lifetime litert [0,1] arenaprof [0,2]", out)
        # Without --lifetimes the lifetimes are not compared.
        rc, _, _ = run(lit, ap2)
        self.assertEqual(rc, 0)
        # --lifetimes on a LiteRT CSV without the columns is bad input.
        rc, _, err = run(LITERT, ap, "--lifetimes")
        self.assertEqual(rc, 2)

    def test_bad_input(self):
        rc, _, err = run(LITERT, None)
        self.assertEqual(rc, 2)
        self.assertIn("bad input", err)
        rc, _, err = run(LITERT, "tensor,name,offset,size\n0,a,0,1\n")
        self.assertEqual(rc, 2)
        self.assertIn("lacks column", err)
        rc, _, err = run(LITERT, ARENAPROF_OK.replace("16,q,832", "16,q,x"))
        self.assertEqual(rc, 2)
        rc, _, err = run("# arena_bytes=0\n", ARENAPROF_OK)
        self.assertEqual(rc, 2)
        rc, _, err = run(LITERT + "0,dup,0,1\n", ARENAPROF_OK)
        self.assertEqual(rc, 2)

    def test_names_with_commas(self):
        lit = LITERT.replace("16,q,", '16,"a,b",')
        ap = ARENAPROF_OK.replace("16,q,", '16,"a,b",')
        rc, out, _ = run(lit, ap)
        self.assertEqual(rc, 0, out)

    def test_empty_litert_arena(self):
        rc, out, _ = run("tensor,name,offset,size\n# arena_bytes=0\n",
                         "tensor,name,offset,size,first_node,last_node,kind\n"
                         "0,w,-1,4,-1,-1,weights\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("0/0 tensors match (100.0%), arena litert=0 "
                      "arenaprof=0", out)


if __name__ == "__main__":
    unittest.main()
