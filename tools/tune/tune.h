/*
 * pacoll-tune: selection rules made from measurements (docs/TUNE.md).
 *
 *   pacoll-tune.c    main: the command line, the three modes
 *   tune_measure.c   the live sweep: every algorithm against native, on the
 *                    communicator it runs on, in loop and barrier modes
 *   tune_read.c      measurements from files: pacoll-bench/1 (pacoll-bench,
 *                    sim/run) and pacoll-tune/1 (this tool's --save)
 *   tune_rules.c     measurements -> rules, the rules file, and the replay
 *                    of rules over measurements
 *   tune_args.c      command-line pieces, shared with pacoll-info
 *
 * No mutable global state: under SMPI every rank is a thread of one process.
 */
#ifndef PACOLL_TUNE_H
#define PACOLL_TUNE_H

#include <mpi.h>
#include <stdio.h>

#define TUNE_MAX_ALGOS 40
#define TUNE_NAME 40

/* One call shape measured once: every algorithm's time, natives included
 * ("native", or "native:ompi" ... from the simulated peers). */
typedef struct tune_obs {
    int coll;
    int ranks, nodes, ppn; /* ppn: the largest node */
    int nic;               /* enum pc_nic, or -1: not known */
    double bytes;          /* per block (alltoallv: the largest) */
    int src;               /* index in tune_set_t.src */
    double margin;         /* the measurement's own (a live run's --margin), 0: --margin's */
    char mode[32];         /* "loop", "barrier", or the file's skew/variant */
    int n;
    char name[TUNE_MAX_ALGOS][TUNE_NAME];
    double us[TUNE_MAX_ALGOS];
} tune_obs_t;

typedef struct tune_set {
    tune_obs_t *obs;
    int n, cap;
    char **src;  /* where each measurement came from */
    char **kind; /* per src: "simulated platform HOST" or "measured on HOST" */
    int nsrc;
} tune_set_t;

tune_obs_t *tune_add(tune_set_t *s);
int tune_add_src(tune_set_t *s, const char *what);
void tune_set_free(tune_set_t *s);
int tune_is_native(const char *name);

/* What went into a rules file besides the measurements. */
typedef struct tune_prov {
    const char *command, *mpi, *host, *date;
    double margin;
} tune_prov_t;

/* tune_read.c: adds a file's measurements, or every *.json file of a
 * directory's (in name order); 0, or -1 with err set. */
int tune_read_file(tune_set_t *s, const char *path, char *err, size_t errlen);

/* tune_rules.c */
/* Writes the rules the measurements justify (pacoll's algorithm only where
 * it beats every native in every measurement of that shape and size by
 * margin) to f; returns the number of rules. */
int tune_write_rules(FILE *f, const tune_set_t *s, const tune_prov_t *p);
/* Replays a rules document over the measurements: what auto would have
 * taken against each native.  Prints the table to f; returns the number of
 * (measurement, native) pairs where auto falls below floor, or -1 if the
 * rules do not parse. */
int tune_replay(FILE *f, const char *rules_text, const char *origin, const tune_set_t *s,
                double floor);
/* 0 if the "rules" of the two documents are the same list, else 1 with the
 * first difference on f (-1: one does not parse). */
int tune_compare(FILE *f, const char *made, const char *file_text, const char *file_name);
/* s as a JSON string. */
void tune_jstr(FILE *f, const char *s);
/* The provenance's members ("command": ..., "margin": ...), sep between. */
void tune_write_prov(FILE *f, const tune_prov_t *p, const char *sep);

#endif

/* ---- tune_args.c ---- */
/* "64", "8k", "1M" in bytes. */
size_t tune_size_arg(const char *s);
/* True if name is one of the comma-separated list's items. */
int tune_listed(const char *list, const char *name);

/* ---- the live sweep (tune_measure.c) ---- */
typedef struct tune_opts {
    unsigned colls;          /* bit per pacoll_coll_t */
    size_t min_size, max_size;
    int repeat, iters;       /* iters: the most calls timed per (size, mode) */
    double margin, floor;
    int loop, barrier;       /* modes measured */
    const char *algos;       /* comma list, NULL: every algorithm that can run */
    const char *out, *save, *check, *compare;
    int quiet;
} tune_opts_t;

/* Measures on comm (collective) every size and collective of o: native
 * (the MPI library's own, not through pacoll), then pacoll's algorithms,
 * or with check set pacoll's automatic choice; each (size, mode) an
 * observation.  In check mode ran[k] gets what auto ran at observation k
 * (TUNE_NAME each).  0, or an MPI error code. */
int tune_measure(MPI_Comm comm, const tune_opts_t *o, tune_set_t *s, char (*ran)[TUNE_NAME],
                 int nran);
