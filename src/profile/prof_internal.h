/*
 * The profiler's own structures (see profile.h for what it does).  Only the
 * files in src/profile/ include this.
 */
#ifndef PACOLL_PROF_INTERNAL_H
#define PACOLL_PROF_INTERNAL_H

#include <pthread.h>

#include "profile/profile.h"

/* One call as this rank saw it: 32 bytes, appended per call. */
typedef struct pc_prof_call {
    double arrival, exit; /* local clock */
    double bytes;
    uint32_t site; /* index into the communicator's site table */
} pc_prof_call_t;

/* A call site: the collective and the caller's return address. */
typedef struct pc_prof_site {
    const void *ra;
    int kind;
} pc_prof_site_t;

/* The records of one communicator, hung on it as an attribute. */
typedef struct pc_prof_comm {
    MPI_Comm comm;
    pc_prof_t *prof;   /* NULL once the context is gone (MPI tearing down) */
    int skip;          /* an intercommunicator: not profiled */
    int reduced;       /* its records were reduced already */
    int rank, size, world_leader;
    uint64_t id;       /* same on every member; (id, world_leader) is unique */
    char name[MPI_MAX_OBJECT_NAME];
    pc_prof_site_t *sites;
    uint32_t nsites, cap_sites;
    uint32_t *hash; /* open addressing: site index + 1, 0 = empty */
    uint32_t hash_cap;
    uint32_t last_site;
    pc_prof_call_t *calls;
    size_t ncalls, cap_calls;
    struct pc_prof_comm *next; /* the context's list of live communicators */
} pc_prof_comm_t;

/* Per rank and call site: what the JSON's "ranks" array holds. */
enum { PC_PROF_DELAY_SUM, PC_PROF_DELAY_MAX, PC_PROF_INSIDE_SUM, PC_PROF_FIRST, PC_PROF_LAST,
       PC_PROF_RANK_STATS };

/* One call site's summary, held by the communicator's rank 0. */
typedef struct pc_prof_result {
    int kind;
    const void *ra;
    char comm_name[MPI_MAX_OBJECT_NAME];
    uint64_t comm_id;
    int comm_size, world_leader, mismatch;
    uint64_t calls;
    double bytes_sum;            /* sum over calls of the mean over ranks */
    double dbar_sum, theta_sum, theta_max, duration_sum; /* seconds */
    int *world_ranks;            /* comm_size */
    double *rank_stats;          /* comm_size * PC_PROF_RANK_STATS */
    struct pc_prof_result *next;
} pc_prof_result_t;

/* One clock synchronisation against world rank 0. */
typedef struct pc_prof_sync {
    int done;
    double t;       /* local time it was taken */
    double offset;  /* local clock - rank 0's clock */
    double bound;   /* |error| <= bound: half the best round trip */
    double *all;    /* rank 0: offset, bound per world rank (2 * world size) */
} pc_prof_sync_t;

/* T: one-way time of a message of 2^i bytes (index 0: 0 bytes). */
#define PC_PROF_MAX_BUCKETS 40

struct pc_prof {
    pthread_mutex_t lock;
    int enabled;
    char *path;
    int world_rank, world_size;
    uint64_t next_id;
    pc_prof_comm_t *live;
    pc_prof_result_t *results, **results_tail;
    pc_prof_sync_t init, fin;
    const char *init_how; /* "MPI_Init", "first MPI_COMM_WORLD call" or NULL */
    int nbuckets;
    double bucket_bytes[PC_PROF_MAX_BUCKETS], bucket_T[PC_PROF_MAX_BUCKETS];
    int t_peer;
};

/* ---- sync.c ---- */
/* Collective over MPI_COMM_WORLD: fills *s (rank 0 also s->all). */
int pc_prof_sync(pc_prof_t *p, pc_prof_sync_t *s);
/* A local time on rank 0's clock. */
double pc_prof_global(const pc_prof_t *p, double local);
/* Collective over MPI_COMM_WORLD: T for buckets up to max_bytes. */
int pc_prof_measure_T(pc_prof_t *p, double max_bytes);
/* T for a message of `bytes`, interpolated between buckets. */
double pc_prof_T(const pc_prof_t *p, double bytes);

/* ---- reduce.c ---- */
/* Collective over c->comm: matches and reduces its calls into results
 * (kept at its rank 0). */
int pc_prof_reduce_comm(pc_prof_t *p, pc_prof_comm_t *c);

/* ---- report.c ---- */
/* Collective over MPI_COMM_WORLD: rank 0 writes p->path and the table. */
int pc_prof_report(pc_prof_t *p);
void pc_prof_result_free(pc_prof_result_t *r);

#endif
