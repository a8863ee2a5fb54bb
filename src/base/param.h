/*
 * Parameters: every PACOLL_* variable is declared once, where it is used,
 * as a constant descriptor (MPICH's per-algorithm CVARs and NCCL's
 * NCCL_PARAM are the model): name, kind, default, valid range, one line of
 * help.  Shared ones sit in core/config.c's table; an algorithm's own sit
 * in its descriptor (core/algo.h, `.params`).  Every value is parsed and
 * checked by the same code here, so every malformed value is reported the
 * same way (MPI_ERR_ARG at the first collective, naming the variable and
 * what was expected), never silently replaced by a default.
 */
#ifndef PACOLL_PARAM_H
#define PACOLL_PARAM_H

#include "base/internal.h"

enum pc_param_kind {
    PC_PARAM_INT,    /* an integer in [lo, hi] */
    PC_PARAM_SIZE,   /* a byte count in [lo, hi], suffix k, m or g allowed */
    PC_PARAM_BOOL,   /* 1/yes/true/on or 0/no/false/off (empty: 0) */
    PC_PARAM_CHOICE, /* one of choices[]; the value is its index */
    PC_PARAM_NUMBER, /* a positive real number */
    PC_PARAM_CUSTOM, /* parse() decides */
    PC_PARAM_TEXT,   /* read and checked by its own code (a name, a list, a path):
                        described here so that every setting is listed in one place */
};

/* The channel's eager slots must hold blocks of this parameter's value
 * (when set, >= 0): an algorithm's copy-based threshold above PACOLL_EAGER. */
#define PC_PARAM_SLOT 1u

typedef struct pc_param {
    const char *env;   /* "PACOLL_RD_THRESHOLD" */
    enum pc_param_kind kind;
    double dflt;       /* the value when unset (or empty, for CHOICE) */
    double lo, hi;     /* INT, SIZE */
    const char *const *choices; /* CHOICE */
    int nchoices;
    /* CUSTOM: 0 and *v, or -1 and what was expected in err. */
    int (*parse)(const char *s, double *v, char *err, size_t errlen);
    unsigned flags;    /* PC_PARAM_SLOT */
    const char *help;  /* one line: what it changes */
    /* The default as a user reads it, where the number says nothing: one
     * derived from another setting, or a TEXT setting's ("built in"). */
    const char *dflt_text;
} pc_param_t;

/* p's default, as pacoll-info --settings shows it: dflt_text, the choice's
 * name, or the number (byte counts with k, M or G where exact). */
void pc_param_default_text(const pc_param_t *p, char *buf, size_t len);

/* The value of p in the environment: 0 and *v (the default when unset), or
 * -1 and a message naming the variable in err. */
int pc_param_read(const pc_param_t *p, double *v, char *err, size_t errlen);

/* The parsers, for the few variables that are not one value (lists). */
int pc_parse_long(const char *s, long lo, long hi, long *out);
int pc_parse_size(const char *s, size_t *out);
/* 1 or 0 for a boolean setting, -1 if s is neither. */
int pc_parse_bool(const char *s);

/* PACOLL_VERBOSE, where no team (and so no parsed configuration) exists. */
int pc_env_verbose(void);

#endif
