# Sourced by run_install_test.sh and run_package_test.sh (bash): runs every
# installed tool of one installed pacoll tree from a clean environment.
#
#   ic_parse_args "$@"     [--cc MPICC] [--fc MPIF90] [--family F]
#                          BUILD_DIR SOURCE_DIR MPIEXEC [mpiexec flags...]
#   installed_checks ROOT WORK
#
# The library folder is found under ROOT/lib* (lib, or the multiarch
# lib/x86_64-linux-gnu of the .deb).  IC_SYSTEM_LAYOUT=1 (the .deb, unpacked
# but not installed): its pacoll.pc has no -rpath, since an installed
# package's libraries are in the loader's own folder, so the pkg-config
# program runs with LD_LIBRARY_PATH set to the unpacked library folder.
#
# ic_parse_args sets CC_MPI, FC_MPI (MPI compiler wrappers; FC_MPI empty = no
# Fortran), FAMILY, BUILD, SRC (tests/install), TESTS (tests/), MPIEXEC and
# the array MPIEXEC_FLAGS.  ROOT is the installed prefix (bin/, lib/,
# include/ ...), WORK a scratch folder.
#
# Every installed program runs under `env -i` with PATH, HOME and, for Open
# MPI as root, OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM): no LD_LIBRARY_PATH, no
# PKG_CONFIG_PATH, no PACOLL_*.  Each step prints "install-check: ok WHAT" or
# "install-check: FAIL WHAT" and the function returns non-zero on a failure.

ic_parse_args() {
    CC_MPI=mpicc FC_MPI="" FAMILY=""
    while [ $# -gt 0 ]; do
        case "$1" in
        --cc) CC_MPI=$2; shift 2 ;;
        --fc) FC_MPI=$2; shift 2 ;;
        --family) FAMILY=$2; shift 2 ;;
        *) break ;;
        esac
    done
    [ $# -ge 3 ] || { echo "usage: $0 [--cc MPICC] [--fc MPIF90] [--family F] BUILD_DIR SOURCE_DIR MPIEXEC [flags...]"; return 2; }
    BUILD=$1 SRC=$2 MPIEXEC=$3
    shift 3
    MPIEXEC_FLAGS=("$@")
    TESTS=$(cd "$SRC/.." && pwd)
}

clean_run() {
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="${HOME:-/root}" \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$@"
}

# step WHAT COMMAND...: runs COMMAND, output into $WORK/log.N, shown on failure
_step_no=0
step() {
    local what=$1 log
    shift
    _step_no=$((_step_no + 1))
    log="$_ic_work/log.$_step_no"
    if "$@" >"$log" 2>&1; then
        echo "install-check: ok $what"
        return 0
    fi
    echo "install-check: FAIL $what"
    echo "---- $* (exit status $?)"
    sed 's/^/    /' "$log" | tail -60
    _ic_failed=$((_ic_failed + 1))
    return 1
}

# expect FILE REGEX...: every extended regex matches a line of FILE
expect() {
    local f=$1 re
    shift
    for re in "$@"; do
        grep -Eq -e "$re" "$f" || { echo "no line matches: $re"; cat "$f"; return 1; }
    done
}
forbid() {
    local f=$1 re
    shift
    for re in "$@"; do
        if grep -Eq -e "$re" "$f"; then echo "a line matches the forbidden: $re"; cat "$f"; return 1; fi
    done
}

_list_once() { # pacoll-bench --list names every (name, collective) once
    local out="$_ic_work/list.txt"
    clean_run "$_ic_root/bin/pacoll-bench" --list >"$out" 2>&1 || { cat "$out"; return 1; }
    expect "$out" '^native +alltoall' '^direct +alltoall' '^native +gather' || return 1
    local dup
    dup=$(grep -v '^#' "$out" | awk 'NF >= 2 && $2 ~ /^(alltoall|alltoallv|allgather|gather)$/ {print $1, $2}' |
          sort | uniq -d)
    [ -z "$dup" ] || { echo "listed twice: $dup"; return 1; }
}

_bogus_once() { # the error of --algos bogus names native once
    local out="$_ic_work/bogus.txt"
    clean_run "$MPIEXEC" "${MPIEXEC_FLAGS[@]}" -n 1 "$_ic_root/bin/pacoll-bench" alltoall \
        --algos bogus >"$out" 2>&1
    expect "$out" "no algorithm 'bogus'.*known: native, auto, direct" || return 1
    local n
    n=$(grep -o 'known: .*' "$out" | head -1 | grep -o '\bnative\b' | wc -l)
    [ "$n" -eq 1 ] || { echo "native listed $n times"; cat "$out"; return 1; }
}

_bench_2 () { # a checked 2-rank run of the installed benchmark
    local out="$_ic_work/bench2.txt"
    clean_run "$MPIEXEC" "${MPIEXEC_FLAGS[@]}" -n 2 "$_ic_root/bin/pacoll-bench" alltoall \
        --algos native,direct --sizes 8:4k --iters 3 --warmup 1 --check >"$out" 2>&1 ||
        { cat "$out"; return 1; }
    expect "$out" 'all results correct'
}

_tune_2() { # the installed tuner writes rules with their provenance on 2 ranks
    local out="$_ic_work/tune2.txt" rules="$_ic_work/tune2.json"
    clean_run "$MPIEXEC" "${MPIEXEC_FLAGS[@]}" -n 2 "$_ic_root/bin/pacoll-tune" --colls gather \
        --sizes 8:16 --repeat 1 --quiet --out "$rules" >"$out" 2>&1 || { cat "$out"; return 1; }
    expect "$out" 'rules from 4 measurements written' || return 1
    expect "$rules" '"provenance": \{"command": "mpirun -np 2 pacoll-tune'
}

_info() { # the installed pacoll-info, without mpirun
    local out="$_ic_work/info.txt"
    clean_run "$_ic_root/bin/pacoll-info" --ranks 4 --nodes 2 >"$out" 2>&1 || { cat "$out"; return 1; }
    expect "$out" '^pacoll [0-9]' 'rules \(built in\)' 'automatic choice on 4 ranks, 2 node'
}

_preloaded() { # PROGRAM OKREGEX: an unchanged MPI program under pacoll-run
    local prog=$1 ok=$2 out="$_ic_work/run.$(basename "$1").txt"
    clean_run "$_ic_root/bin/pacoll-run" --stats -- "$MPIEXEC" "${MPIEXEC_FLAGS[@]}" -n 2 "$prog" \
        >"$out" 2>&1 || { cat "$out"; return 1; }
    expect "$out" "$ok" 'pacoll-stats: alltoall [^ ]+ calls=[1-9]' 'pacoll-stats: alltoallv [^ ]+ calls=[1-9]' \
        'pacoll-stats: allgather [^ ]+ calls=[1-9]' 'pacoll-stats: gather [^ ]+ calls=[1-9]' || return 1
    forbid "$out" 'pacoll-run: WARNING' 'cannot be preloaded'
}

_run_2() { # PROGRAM [VAR=VALUE...]: a program linked with the installed libpacoll, 2 ranks
    local prog=$1 out="$_ic_work/run2.$(basename "$1").txt"
    shift
    clean_run env "$@" "$MPIEXEC" "${MPIEXEC_FLAGS[@]}" -n 2 "$prog" >"$out" 2>&1 || { cat "$out"; return 1; }
    expect "$out" 'consumer: pacoll [0-9.]+, OK'
}

_runpath() { # the installed binaries' run paths are relative, never the build tree's
    local f rp
    command -v readelf >/dev/null 2>&1 || return 0
    for f in "$_ic_root"/bin/pacoll-bench "$_ic_lib"/libpacoll.so.* "$_ic_lib"/libpacoll_preload.so; do
        [ -f "$f" ] || continue
        rp=$(readelf -d "$f" | grep -E 'RUNPATH|RPATH' || true)
        case "$rp" in
        *'$ORIGIN'*) ;;
        *) echo "$f: no \$ORIGIN run path: $rp"; return 1 ;;
        esac
        case "$rp" in
        *"${BUILD:-/nonexistent}"*) echo "$f: run path names the build tree: $rp"; return 1 ;;
        esac
    done
}

installed_checks() {
    _ic_root=$1 _ic_work=$2 _ic_failed=0
    mkdir -p "$_ic_work"
    local lib so
    so=$(find "$_ic_root"/lib* -name libpacoll.so 2>/dev/null | head -1)
    [ -n "$so" ] || { echo "install-check: FAIL no libpacoll.so under $_ic_root"; return 1; }
    lib=$(dirname "$so") _ic_lib=$lib

    step "run paths are \$ORIGIN-relative" _runpath
    step "pacoll-bench --list names each algorithm once" _list_once
    step "pacoll-bench --algos bogus names native once" _bogus_once
    step "pacoll-bench, 2 ranks, checked" _bench_2
    step "pacoll-tune, 2 ranks, writes rules" _tune_2
    step "pacoll-info names the built-in rules" _info
    step "pacoll-run --help" clean_run "$_ic_root/bin/pacoll-run" --help

    # an unchanged C program and an unchanged Fortran program, preloaded
    if step "build an unchanged C MPI program (mpicc, no pacoll)" \
        "$CC_MPI" "$TESTS/interpose/interpose_c.c" -o "$_ic_work/plain_c"; then
        step "pacoll-run: preloaded C program" _preloaded "$_ic_work/plain_c" 'interpose-c: OK'
    fi
    if [ -n "${FC_MPI:-}" ]; then
        local fflags=(-fallow-argument-mismatch -w)
        "$FC_MPI" "${fflags[@]}" --version >/dev/null 2>&1 || fflags=()
        if step "build an unchanged Fortran MPI program ($(basename "$FC_MPI"), use mpi)" \
            "$FC_MPI" "${fflags[@]}" -I"$TESTS/interpose" -J"$_ic_work" "$TESTS/interpose/interpose_usempi.f90" \
            -o "$_ic_work/plain_f"; then
            step "pacoll-run: preloaded Fortran program" _preloaded "$_ic_work/plain_f" 'interpose-usempi: OK'
        fi
    fi

    # a program built with pkg-config (the .pc found by path only)
    local pc
    if pc=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs pacoll) &&
        step "build with pkg-config --cflags --libs pacoll" \
            "$CC_MPI" "$SRC/consumer/main.c" -o "$_ic_work/pc" $pc; then
        if [ "${IC_SYSTEM_LAYOUT:-0}" = 1 ]; then
            step "run the pkg-config program (2 ranks, LD_LIBRARY_PATH: not installed)" \
                _run_2 "$_ic_work/pc" LD_LIBRARY_PATH="$lib"
        else
            step "run the pkg-config program (2 ranks)" _run_2 "$_ic_work/pc"
        fi
    else
        echo "install-check: FAIL pkg-config --cflags --libs pacoll"
        _ic_failed=$((_ic_failed + 1))
    fi
    # a program built with CMake's find_package(pacoll)
    if step "configure with find_package(pacoll)" \
        cmake -S "$SRC/consumer" -B "$_ic_work/cm" -DCMAKE_PREFIX_PATH="$_ic_root" \
        -DCMAKE_C_COMPILER="$CC_MPI" &&
        step "build with find_package(pacoll)" cmake --build "$_ic_work/cm"; then
        step "run the find_package program (2 ranks)" _run_2 "$_ic_work/cm/consumer"
    fi
    return $((_ic_failed > 0))
}
