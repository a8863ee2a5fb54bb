#!/usr/bin/env python3
"""Syntax and shape check of packaging/spack/package.py without Spack.

Spack cannot run here (no network for its bootstrap), so a tiny stand-in for
`spack.package` records the recipe's directives; the recipe is compiled
(py_compile), imported, and its cmake_args() called on a fake spec. Prints
"spack recipe: ok" or the first problem.
"""
import importlib.util
import py_compile
import sys
import types

recipe = sys.argv[1] if len(sys.argv) > 1 else "packaging/spack/package.py"
py_compile.compile(recipe, doraise=True)

calls = []
stub = types.ModuleType("spack.package")


def directive(name):
    def record(*args, **kwargs):
        calls.append((name, args, kwargs))
        return lambda f: f
    return record


for name in ("version", "variant", "depends_on", "maintainers", "license", "conflicts",
             "patch", "provides", "resource", "requires", "run_after", "run_before",
             "on_package_attributes"):
    setattr(stub, name, directive(name))


class CMakePackage:
    def define(self, name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        return f"-D{name}={value}"

    def define_from_variant(self, name, variant):
        return self.define(name, self.spec.variants[variant])


stub.CMakePackage = CMakePackage
stub.join_path = lambda *p: "/".join(p)
stub.Executable = object
stub.InstallError = RuntimeError
spack = types.ModuleType("spack")
spack.package = stub
sys.modules["spack"] = spack
sys.modules["spack.package"] = stub

spec_mod = importlib.util.spec_from_file_location("pacoll_recipe", recipe)
mod = importlib.util.module_from_spec(spec_mod)
spec_mod.loader.exec_module(mod)


class FakeMPI:
    mpicc = "/opt/mpi/bin/mpicc"
    mpifc = "/opt/mpi/bin/mpif90"
    prefix = types.SimpleNamespace(bin="/opt/mpi/bin")


class FakeSpec:
    # every variant at the default the recipe declares
    variants = {c[1][0]: c[2].get("default") for c in calls if c[0] == "variant"}

    def __getitem__(self, key):
        assert key == "mpi", key
        return FakeMPI()

    def satisfies(self, s):
        return s.startswith("+") and self.variants.get(s[1:]) is True


pkg = mod.Pacoll.__new__(mod.Pacoll)
pkg.spec = FakeSpec()
args = pkg.cmake_args()
problems = []
names = {c[0] for c in calls}
for need in ("version", "depends_on", "license"):
    if need not in names:
        problems.append(f"no {need}() directive")
if not any(c[0] == "depends_on" and c[1] and str(c[1][0]).startswith("mpi") for c in calls):
    problems.append("no depends_on('mpi')")
if not any(c[0] == "license" and c[1] == ("BSD-3-Clause",) for c in calls):
    problems.append("license is not BSD-3-Clause")
for want in ("-DMPI_C_COMPILER=/opt/mpi/bin/mpicc", "-DPACOLL_FORTRAN=ON", "-DPACOLL_BUILD_TESTS=OFF"):
    if want not in args:
        problems.append(f"cmake_args lacks {want}: {args}")
if problems:
    print("spack recipe: FAIL " + "; ".join(problems))
    sys.exit(1)
print(f"spack recipe: ok ({len(calls)} directives, cmake_args {args})")
