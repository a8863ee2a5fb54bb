# Spack recipe for pacoll: copy this folder to a Spack repository as
# packages/pacoll/ (`spack repo create`, then `spack repo add`), or point
# `spack create`'s template at it.  pacoll is bound to one MPI's ABI: Spack
# builds it once per MPI in the spec (`spack install pacoll ^openmpi`,
# `spack install pacoll ^mpich`).
#
# Copyright the pacoll authors.  SPDX-License-Identifier: BSD-3-Clause

from spack.package import *


class Pacoll(CMakePackage):
    """Arrival-pattern-aware MPI collectives (alltoall, alltoallv, allgather,
    gather) for multi-core clusters, on top of the MPI library it is built
    with: linked as libpacoll, or preloaded into unchanged programs with
    pacoll-run."""

    # No public home page or download address yet: set url (the release
    # archive, tagged vX.Y.Z) and the sha256 of each version when they exist,
    # or use a local mirror or git clone (`spack develop`).
    git = "file:///path/to/pacoll.git"  # replace: the site's clone

    maintainers("pacoll-maintainers")
    license("BSD-3-Clause")

    version("main", branch="main")
    version("0.2.0", tag="v0.2.0")

    variant("fortran", default=True, description="Build the Fortran interposition tests")
    variant("tests", default=False, description="Build the test suite (ctest)")
    variant("ucx", default=True, description="The ucx transport between hosts (UCX active messages)")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi@3:")
    depends_on("ucx", when="+ucx")
    # pacoll-run is a bash script; pacoll-report (python/) is a separate pip package
    depends_on("bash", type="run")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("MPI_C_COMPILER", spec["mpi"].mpicc),
            self.define("MPIEXEC_EXECUTABLE", join_path(spec["mpi"].prefix.bin, "mpiexec")),
            self.define_from_variant("PACOLL_FORTRAN", "fortran"),
            self.define_from_variant("PACOLL_BUILD_TESTS", "tests"),
            self.define("PACOLL_UCX", "ON" if spec.satisfies("+ucx") else "OFF"),
        ]
        if spec.satisfies("+fortran"):
            args.append(self.define("MPI_Fortran_COMPILER", spec["mpi"].mpifc))
        return args

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_install(self):
        # every installed tool answers --version with this version
        # (Spack's own environment gives PATH, PKG_CONFIG_PATH and
        # CMAKE_PREFIX_PATH for lib or lib64, whichever GNUInstallDirs chose)
        for tool in ("pacoll-run", "pacoll-info"):
            out = Executable(join_path(self.prefix.bin, tool))("--version", output=str)
            if not self.spec.satisfies("@main") and str(self.spec.version) not in out:
                raise InstallError(f"{tool} --version: {out}")
