/*
 * Internal declarations shared by every layer of pacoll.
 *
 * Layers, bottom up (see docs/ARCHITECTURE.md): base -> channel -> core ->
 * select -> engine -> algorithms (alltoall, alltoallv, allgather, gather) ->
 * api -> interpose; profile sits on base alone, below api.
 *
 * Every MPI call inside the library goes to PMPI_*: the library must never
 * re-enter its own MPI_* wrappers when it is preloaded.
 */
#ifndef PACOLL_INTERNAL_H
#define PACOLL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pacoll.h"

#define PC_EXPORT __attribute__((visibility("default")))
#define PC_UNUSED(x) ((void)(x))

#ifdef SMPI_HELPERS_H
#define PACOLL_UNDER_SMPI 1
#else
#define PACOLL_UNDER_SMPI 0
#endif

/* Largest number of algorithms the registry can hold (stats are a fixed
 * table of this size so they can be reduced across ranks in one call). */
#define PC_MAX_ALGOS 64
/* Longest error or verbose message the library formats. */
#define PC_MSG_LEN 1024

typedef struct pacoll_team pacoll_team_t;
typedef struct pacoll_algo pacoll_algo_t;

/* Prints "pacoll[rank]: ..." on stderr (one fprintf, so lines from ranks
 * do not interleave mid-line). */
void pc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "4 ranks on 2 nodes, at most 3 on one", "1 rank on 1 node": a
 * communicator's shape as messages say it. */
void pc_shape_words(int ranks, int nodes, int ppn_max, char *buf, size_t len);

/* The clock PACOLL_TIMEOUT is measured on, in seconds: monotonic real
 * time, and under SMPI the simulated clock.  One SMPI process runs every
 * rank, so a rank's wait lasts the wall time of simulating all the others
 * (one wait of a 256-rank run passed 600 s); a simulated hang is a poll
 * loop whose simulated time grows (the wait layer's back-off), a blocked
 * one SimGrid's own deadlock. */
double pc_deadline_clock(void);

/* Under SMPI: this rank computes for `seconds` of simulated time (exactly:
 * smpi_execute would scale by smpi/host-speed and drop short delays).
 * Elsewhere: nothing. */
void pc_sim_delay(double seconds);

/* Under SMPI: charges the modelled time of copying n bytes at
 * PACOLL_SIM_COPY_BW (bytes/s, set per platform by sim/run; default 10e9),
 * the one copy cost every copy in the library pays (pc_copy, and the
 * algorithms that copy many small pieces and charge them at once).
 * Elsewhere: nothing. */
void pc_copy_charge(size_t n);
/* Under SMPI: the seconds pc_copy_charge has charged this rank so far
 * (PACOLL_TRACE's copy time), and the simulated clock, read without a
 * simcall.  Elsewhere: 0, and the wall clock. */
double pc_copy_charged(void);
double pc_trace_clock(void);
/* Under SMPI: lets the time charged so far pass before the flags that
 * follow are seen (SMPI injects charged time at the next MPI call).
 * Elsewhere: nothing. */
void pc_charge_settle(void);
/* The modelled copy bandwidth's default, and its parser (config.c
 * validates the variable with it at team creation, so a malformed value
 * is reported, not replaced). */
#define PC_SIM_COPY_BW_DEFAULT 10e9
/* The fair model (PACOLL_SIM_FAIR=L, the eager limit, set by sim/run --model
 * fair; docs/SIM.md, "The fair model"): there the platform charges the
 * copy-in and copy-out of every message below L bytes through SMPI's
 * smpi/os, ois and or, pacoll's messages and the peers' alike.  Under SMPI,
 * pc_copy_refund says that the receive of n bytes of a network eager block
 * was charged its copy-out already (n < L), so the next n bytes
 * pc_copy_charge would charge are not charged again; pc_sim_shm_message
 * charges the writer of a node segment's flag (n = 0) what the peers'
 * intra-node messages pay besides their copies: the platform's intra-node
 * latency and n bytes at its intra-node bandwidth (PACOLL_SIM_SHM_LAT,
 * PACOLL_SIM_SHM_BW).  Without the fair model, and outside SMPI, both do
 * nothing. */
void pc_copy_refund(size_t n);
void pc_sim_shm_message(size_t n);
/* The same for a shared-memory mailbox flag (an eager message of n bytes,
 * an advertisement, a zero-copy completion), which does not hold up its
 * writer: the simulated time at which a message of n bytes written now is
 * seen (0 without the fair model), and whether a flag stamped so is seen
 * yet; with may_wait, a flag not yet seen is waited for (it is in flight),
 * as a blocking receive of a message already sent waits for the rest. */
double pc_sim_shm_visible_at(size_t n);
int pc_sim_shm_visible(double at, int may_wait);
/* Under the fair model: whether a message of n bytes is at or above its
 * eager limit, where a peer's intra-node message is a rendezvous: one
 * flow, no copy charged (shm.c charges pacoll's single-copy write the same). */
int pc_sim_fair_rendezvous(size_t n);
/* Under SMPI: pc_copy_charge for a copy no message makes (a rank's own
 * block, into its receive buffer or an algorithm's staging area).  The fair model charges it
 * nothing: SMPI charges nothing for the peers' own-block copies
 * (Datatype::copy), and the same work must cost both sides the same. */
void pc_copy_charge_local(size_t n);
#define PC_SIM_SHM_LAT_DEFAULT 0.25e-6
#define PC_SIM_SHM_BW_DEFAULT 6e9
int pc_parse_positive(const char *s, double *out);
/* MPI library families: the one this build's mpi.h belongs to, and the one
 * that runs the process (MPI_Get_library_version, callable before MPI_Init;
 * for Open MPI also *major.*minor, else 0; name: the version string's first
 * line).  base/mpilib.c. */
enum pc_mpi_family { PC_MPI_UNKNOWN = 0, PC_MPI_OPENMPI = 1, PC_MPI_MPICH = 2 };
int pc_mpi_built_for(void);
int pc_mpi_running(int *major, int *minor, char *name, size_t len);
const char *pc_mpi_family_name(int family);
/* A whole file as a NUL-terminated string (malloc'd), or NULL. */
char *pc_file_read(const char *path);

/* A process of this host, as its peers see it (base/proc.c): pid, start
 * time and pid namespace.  A rank that has waited long for a peer on its
 * host looks whether the peer's process is still there, so that a dead
 * rank is named rather than waited for without end.  start and ns are 0
 * where /proc cannot tell them (and under SMPI, where one process runs
 * every rank): such a process is never checked. */
typedef struct pc_proc {
    uint64_t pid, start, ns;
} pc_proc_t;
pc_proc_t pc_proc_self(void);
/* Whether p's liveness can be told from the process me: the same pid
 * namespace, both identities known. */
int pc_proc_checkable(const pc_proc_t *me, const pc_proc_t *p);
/* 1 if the process p has exited (no such pid, a zombie, or the pid now
 * names a process started later); 0 if it runs or /proc does not say. */
int pc_proc_gone(const pc_proc_t *p);

#endif
