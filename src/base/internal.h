/*
 * Internal declarations shared by every layer of pacoll.
 *
 * Layers, bottom up (see docs/ARCHITECTURE.md): base -> channel (and its
 * simulated platform, channel/sim) -> core -> select -> engine -> algorithms
 * (alltoall, alltoallv, allgather, gather) -> api -> interpose; profile sits
 * on base alone, below api.
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

/* A positive finite real number from s (0 on success, -1 if malformed). */
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
 * where /proc cannot tell them: such a process is never checked.  (Where
 * one process runs every rank, the channel never asks.) */
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
