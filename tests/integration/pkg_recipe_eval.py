"""What bitbake would make of meta-arenaprof's recipe, without bitbake: the recipe's
assignments and its Python (the def and the anonymous function, as oelint-parser finds
them), expanded and run against a stand-in for bitbake's datastore. Run by
tests/integration/test_pkg_recipes.sh with /opt/oelint-venv's Python.

  pkg_recipe_eval.py RECIPE var NAME [VAR=VALUE...]   NAME expanded; VAR=VALUE as a
                                                     local.conf would set it
  pkg_recipe_eval.py RECIPE run TASK [VAR=VALUE...]   the oe_runmake arguments of TASK
  pkg_recipe_eval.py RECIPE arch TARGET_ARCH          AP_ARCH, or "skip: REASON" when the
                                                     anonymous function skips the recipe
"""
import os
import re
import sys
import textwrap

from oelint_parser.cls_item import Function, PythonBlock
from oelint_parser.cls_stash import Stash


class SkipRecipe(Exception):
    pass


class FakeBB:
    """The part of bitbake's bb module the recipe's Python uses."""
    class parse:
        SkipRecipe = SkipRecipe

    @staticmethod
    def fatal(msg):
        raise SystemExit("bb.fatal: " + msg)


class FakeData:
    """bitbake's d: getVar expands ${VAR} and ${@python} as bitbake does."""
    def __init__(self, values, namespace):
        self.values = values
        self.ns = namespace

    def expand(self, s):
        for _ in range(20):
            new = re.sub(r"\$\{@([^}]*)\}",
                         lambda m: str(eval(m.group(1), self.ns, {"d": self})), s)
            new = re.sub(r"\$\{(\w+)\}", lambda m: self.getVar(m.group(1)) or m.group(0), new)
            if new == s:
                return s
            s = new
        return s

    def getVar(self, name):
        return self.expand(self.values[name]) if name in self.values else None


def assignments(text, given):
    """NAME = "VALUE" lines; given values replace ??= and ?= defaults, as local.conf's do."""
    values = {}
    for m in re.finditer(r'^([A-Za-z_][\w${}:-]*) (\?\?=|\?=|=) "(.*)"$',
                         text.replace("\\\n", " "), re.M):
        name, op, val = m.groups()
        if op == "=" or name not in given:
            values[name] = val
    for name, val in given.items():
        values.setdefault(name, val)
    return values


def main():
    recipe, mode, what = sys.argv[1:4]
    given = dict(a.split("=", 1) for a in sys.argv[4:])
    given.setdefault("FILE_DIRNAME", os.path.dirname(os.path.abspath(recipe)))
    if mode == "arch":
        given["TARGET_ARCH"] = what
    stash = Stash(quiet=True)
    stash.AddFile(recipe)
    stash.Finalize()
    items = stash.GetItemsFor()
    ns = {"bb": FakeBB, "os": os}
    anon = []
    for i in items:
        if isinstance(i, PythonBlock):
            exec(i.Raw, ns)
        elif isinstance(i, Function) and i.IsPython and i.FuncName == "":
            body = i.Raw.split("\n", 1)[1].rsplit("}", 1)[0]
            anon.append(textwrap.dedent(body))
    d = FakeData(assignments(open(recipe).read(), given), ns)
    if mode == "var":
        print(d.getVar(what))
    elif mode == "run":
        task = [i for i in items if isinstance(i, Function) and i.FuncName == what]
        args = re.findall(r"^\s*oe_runmake (.*)$", task[0].Raw, re.M) if task else []
        print(d.expand(args[0]) if args else "")
    elif mode == "arch":
        try:
            for body in anon:
                exec(body, ns, {"d": d})
            print(d.getVar("AP_ARCH"))
        except SkipRecipe as e:
            print("skip: %s" % e)


main()
