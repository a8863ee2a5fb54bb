/*
 * Learning in place (docs/AUTO.md, "Learning in place"): the pure logic,
 * without MPI, so that tests/unit/unit_learn.c runs it alone.
 *
 * A class is one collective on one communicator at one power-of-two range
 * of block bytes.  Its first calls try a short list of candidates (slot 0
 * is always the MPI library's own) on the application's real calls, in a
 * schedule every rank computes from the class's call count alone: a
 * warm-up round (each candidate once, untimed: first-call set-up is not
 * what a candidate costs), then PC_LEARN_TRIALS timed rounds, candidate by
 * candidate.  Ranks agree only at fixed points of that schedule, each one
 * reduction of the values pc_learn_values gives: after the first timed
 * round (candidates far behind are dropped), after the last (the choice),
 * and, once settled on one of pacoll's algorithms, every
 * PC_LEARN_DRIFT_SAMPLES sampled calls (a choice whose time drifted is
 * explored again).  Since every input of the schedule is agreed, every
 * rank runs the same candidate on the same call.
 */
#ifndef PACOLL_LEARN_H
#define PACOLL_LEARN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PC_LEARN_CANDS 4          /* candidates per class, the MPI library's included */
#define PC_LEARN_TRIALS 3         /* timed trials per candidate */
#define PC_LEARN_CLASSES 64       /* block-byte classes: 0, then [2^(k-1), 2^k) */
#define PC_LEARN_DROP 2.0         /* dropped after the first timed round: this much slower */
#define PC_LEARN_MARGIN 1.03      /* pacoll's must beat the MPI library's by this */
#define PC_LEARN_SAMPLE_EVERY 16  /* settled: one call in this many is timed */
#define PC_LEARN_DRIFT_SAMPLES 8  /* settled: samples per drift check */
#define PC_LEARN_DRIFT 1.5        /* explored again when this much slower than chosen */
#define PC_LEARN_REVISITS 3       /* at most this many explorations again per class */

/* What the call after a pc_learn_record needs: nothing, or one reduction
 * (sum over ranks of pc_learn_values) handed to pc_learn_agree. */
enum { PC_LEARN_RUN, PC_LEARN_AGREE_DROP, PC_LEARN_AGREE_DECIDE, PC_LEARN_AGREE_DRIFT };
/* A class's state. */
enum { PC_LEARN_EXPLORING, PC_LEARN_SETTLED };

typedef struct pc_learn_class {
    int state;
    int ncand;
    int cand[PC_LEARN_CANDS];  /* the caller's names (registry indices); cand[0] native */
    unsigned alive;            /* a bit per candidate still explored */
    int round;                 /* 0: warm-up, 1..PC_LEARN_TRIALS: timed */
    int pos;                   /* the next call's place among the alive candidates */
    double t[PC_LEARN_CANDS][PC_LEARN_TRIALS]; /* this rank's timed trials, seconds */
    int n[PC_LEARN_CANDS];
    double spent[PC_LEARN_CANDS]; /* this rank's time in every trial of each candidate */
    double agreed[PC_LEARN_CANDS]; /* mean over ranks of each rank's median; 0: none */
    int choice;                /* settled: the slot */
    double ref;                /* settled: the choice's agreed time (0: from a file) */
    uint64_t calls;            /* settled: calls since */
    double drift_sum;
    int drift_n;
    int revisits;
    int from_file;             /* settled from PACOLL_LEARN_FILE */
    /* what this class cost, for PACOLL_STATS */
    uint64_t trial_calls, decisions;
    double lost;               /* seconds in trials of candidates that lost */
} pc_learn_class_t;

/* The class of m bytes per block. */
int pc_learn_class_of(size_t m);
/* Its bytes: [lo, hi]. */
void pc_learn_class_bytes(int cls, size_t *lo, size_t *hi);

/* Starts exploring cand[0..n) (n <= PC_LEARN_CANDS; cand[0] the MPI
 * library's); with n == 1 the class is settled at once. */
void pc_learn_start(pc_learn_class_t *c, int n, const int *cand);
/* Settled on slot choice without trials (a learned file). */
void pc_learn_settle(pc_learn_class_t *c, int n, const int *cand, int choice, double ref);
/* The slot the next call runs. */
int pc_learn_slot(const pc_learn_class_t *c);
/* True if the next call is timed (only timed calls need the clock). */
int pc_learn_timed(const pc_learn_class_t *c);
/* True while the class may still change its choice, so its calls must
 * come back (pc_learn_record): exploring, or settled on pacoll's. */
int pc_learn_active(const pc_learn_class_t *c);
/* The next call ran, taking sec (ignored when not timed): a PC_LEARN_*
 * agreement it now needs, or PC_LEARN_RUN. */
int pc_learn_record(pc_learn_class_t *c, double sec);
/* This rank's contribution to agreement kind: PC_LEARN_CANDS values. */
void pc_learn_values(const pc_learn_class_t *c, int kind, double *v);
/* The agreed sums over nranks ranks: the schedule goes on.  Returns 1 when
 * the class has just been decided (or explored again: PC_LEARN_AGREE_DRIFT),
 * else 0. */
int pc_learn_agree(pc_learn_class_t *c, int kind, const double *sum, int nranks);

/* ------------------------------------------------ the learned file */

typedef struct pc_learn_entry {
    int ranks, nodes, ppn;     /* the shape: ppn is the largest node */
    char coll[16];
    int cls;
    int ncand;
    char cand[PC_LEARN_CANDS][32];
    double sec[PC_LEARN_CANDS]; /* agreed time, 0 if dropped or not measured */
    char choice[32];
} pc_learn_entry_t;

typedef struct pc_learn_book {
    pc_learn_entry_t *e;
    int n, cap;
    char host[64]; /* where it was learned (MPI_Get_processor_name of the writer) */
} pc_learn_book_t;

/* Reads a learned file's text into b (emptied first): 0, or -1 and what
 * is wrong in err (b is then empty).  Every entry is checked; a file with
 * any wrong entry is refused whole. */
int pc_learn_book_parse(const char *text, pc_learn_book_t *b, char *err, size_t errlen);
/* Writes b as JSON: 0, or -1 on an output error. */
int pc_learn_book_write(const pc_learn_book_t *b, FILE *f);
/* Adds e, replacing the entry of the same shape, collective and class:
 * 0, or -1 without memory. */
int pc_learn_book_put(pc_learn_book_t *b, const pc_learn_entry_t *e);
const pc_learn_entry_t *pc_learn_book_find(const pc_learn_book_t *b, int ranks, int nodes, int ppn,
                                           const char *coll, int cls);
void pc_learn_book_free(pc_learn_book_t *b);

#endif
