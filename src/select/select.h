/*
 * Algorithm selection, per call:
 *   call site (pacoll_*_alg) > communicator (pacoll_comm_set_algorithm) >
 *   environment (PACOLL_<COLL>) > selection rules (JSON) > the MPI library.
 * The rules are data, not code (MPICH's CSEL is the model): the embedded
 * rules/default.json (made by pacoll-tune from measurements, docs/TUNE.md),
 * or the file named by PACOLL_RULES.  A call no rule matches goes to the MPI
 * library: pacoll runs its own algorithm only where a measurement showed it
 * wins.  Every input of the choice is the same on every rank (block size,
 * ranks, nodes, the NIC's nature, alltoallv's agreed largest block), so all
 * ranks choose the same algorithm; the last two cost communication and are
 * measured only when a rule that could match needs them.  Where no rule
 * is about the communicator's shape (PACOLL_LEARN), learning in place
 * replaces the rules' answer by what the calls themselves measured
 * (learn_team.c; docs/AUTO.md, "Learning in place").
 */
#ifndef PACOLL_SELECT_H
#define PACOLL_SELECT_H

#include "core/team.h"

/* What a rule may look at besides the call's size: the communicator's
 * shape.  nic: enum pc_nic, or -1 while unknown. */
typedef struct pc_shape {
    int ranks, nodes, ppn; /* ppn: the largest node */
    int nic;
    int shm; /* a node shared-memory segment is available */
} pc_shape_t;

typedef struct pc_rules pc_rules_t;

/* Parses a rules document; NULL with a message naming origin, the rule
 * and its line in err.  Rules naming an algorithm this build lacks are
 * skipped. */
pc_rules_t *pc_rules_parse(const char *text, const char *origin, char *err, size_t errlen);
void pc_rules_free(pc_rules_t *rs);
/* The i-th rule skipped because this build has no algorithm of its name
 * (0 past the last): its number in the file (1-based), line, collective
 * and algorithm. */
int pc_rules_skipped(const pc_rules_t *rs, int i, int *number, int *line, const char **coll,
                     const char **algo);
/* The embedded rules/default.json. */
const char *pc_rules_builtin(void);
int pc_rules_count(const pc_rules_t *rs);
const char *pc_rules_origin(const pc_rules_t *rs);
/* "the built-in selection rules" or "the selection rules in FILE": how
 * PACOLL_VERBOSE and pacoll-info name them. */
void pc_rules_source(const pc_rules_t *rs, char *buf, size_t len);

/* pc_rules_pick's answers besides a rule's position. */
#define PC_PICK_NONE (-1)       /* no rule matches: the MPI library */
#define PC_PICK_NEED_NIC (-2)   /* the next rule to try asks for s->nic, unknown */
#define PC_PICK_NEED_BYTES (-3) /* the next rule to try asks for m, unknown (m < 0) */

/* The first rule that matches a call of coll, m bytes per block, on shape s
 * and whose algorithm can run there: its position, or a PC_PICK_* value.
 * Rules are tried in order, so a caller that supplies what was asked for
 * and asks again gets the same answer as if it had been known from the
 * start. */
int pc_rules_pick(const pc_rules_t *rs, int coll, const pc_shape_t *s, double m);
/* Rule i's algorithm (registry index, or PC_ALGO_MODEL), its number in the
 * file (1-based) and line. */
#define PC_ALGO_MODEL (-2) /* "algo": "model": the cost models choose among pacoll's */
void pc_rules_rule(const pc_rules_t *rs, int i, int *algo, int *number, int *line);
/* The cost models' choice among pacoll's algorithms that can run on s. */
int pc_model_pick(const pc_shape_t *s, int ports, pacoll_coll_t coll, size_t m);
/* The registry index the rules give a call: pc_rules_pick's rule (in
 * *pick, if not NULL), its algorithm with "model" resolved for ports, and
 * native when no rule matches or one asks for what s or m does not say. */
int pc_rules_choose(const pc_rules_t *rs, int coll, const pc_shape_t *s, double m, int ports,
                    int *pick);

/* True if some rule for coll may match shape s at some size (and NIC) and
 * names one of pacoll's algorithms that can run there. */
int pc_rules_may_run(const pc_rules_t *rs, int coll, const pc_shape_t *s);
/* True if some rule for coll is about shape s, at some size and NIC,
 * whatever it names: the rules were measured on that shape. */
int pc_rules_cover(const pc_rules_t *rs, int coll, const pc_shape_t *s);
/* True if pacoll may run one of its algorithms on team t without one being
 * named at a call or on the communicator: by its rules (loaded) or by
 * PACOLL_<COLL>.  It depends on no call's arguments. */
int pc_team_may_run(const pacoll_team_t *t);

/* What selection keeps per team (t->sel), made when the rules are loaded
 * and freed with the team (pc_team_ext_set). */
typedef struct pc_learn_team pc_learn_team_t;
typedef struct pc_team_select {
    pc_rules_t *rules; /* the context's, else the team's own */
    pc_learn_team_t *learn; /* learning in place (learn_team.c), NULL when off */
    int own;           /* rules are the team's: freed with it */
    struct {           /* the last automatic choice per collective: programs call */
        size_t m;      /* with the same sizes again and again */
        int idx;       /* -1 = none yet */
        int any_m;     /* it did not depend on m */
    } pick[PACOLL_NCOLL];
} pc_team_select_t;

/* Loads the team's rules into t->sel (once; the api does it at the team's
 * first call, so that a bad rules file fails that call; pc_select on a
 * sub-team does it itself).  MPI_ERR_NO_MEM when t->sel cannot be made. */
int pc_rules_load(pacoll_team_t *t);

void pc_team_shape(const pacoll_team_t *t, pc_shape_t *s);
/* True if shape s meets algorithm a's needs; else *why says which. */
int pc_algo_fits(const pc_shape_t *s, const pacoll_algo_t *a, const char **why);
int pc_algo_can_run(const pacoll_team_t *t, const pacoll_algo_t *a, const char **why);

/* The agreed largest block of an alltoallv call, in bytes: collective over
 * the team, asked only when a rule needs it. */
typedef size_t (*pc_agree_bytes_fn)(pacoll_team_t *t, const void *call);

/* The registry index chosen for a call of coll with m bytes per block.
 * With agree (alltoallv), m is unknown until a rule asks: agree(t, call)
 * then gives it.  why, if not NULL, says which rule chose, or that none
 * did, as the end of a sentence ("by rule 3 at line 6 of the built-in
 * selection rules", "since no rule of ... matches"). */
int pc_select_why(pacoll_team_t *t, pacoll_coll_t coll, size_t m, pc_agree_bytes_fn agree,
                  const void *call, char *why, size_t len);
/* The same without agreement (m as given) or explanation. */
int pc_select(pacoll_team_t *t, pacoll_coll_t coll, size_t m);

/* Learning in place (learn_team.c; docs/AUTO.md, "Learning in place"). */
/* Made at the team's first call, after its rules, when PACOLL_LEARN is
 * on: with PACOLL_LEARN_FILE a broadcast over the team (the file's
 * choices for its shape, read by its rank 0).  MPI_ERR_NO_MEM, or an MPI
 * error of the broadcast. */
int pc_learn_open(pacoll_team_t *t);
/* Folds what the team learned into the process's (select_free). */
void pc_learn_close(pacoll_team_t *t, pc_learn_team_t *lt);
/* True if learning may run one of pacoll's algorithms on t (so its
 * channel is made at its first call, as when the rules may). */
int pc_learn_may_run(const pacoll_team_t *t);
/* A call that learns: its class, and the clock at its start. */
typedef struct pc_learn_call {
    struct pc_learn_class *cls; /* NULL: the call does not learn (nor may its class
                                 * change: it may go the plain way) */
    int coll, k, timed;
    double t0;
} pc_learn_call_t;
/* The registry index a call of coll with m bytes per block runs, the
 * rules having given rules_idx; lc says whether it learns. */
int pc_learn_pick(pacoll_team_t *t, pacoll_coll_t coll, size_t m, int rules_idx,
                  pc_learn_call_t *lc);
/* After that call, whatever it returned, on every rank: its time, and at
 * the schedule's agreement points one reduction over the team. */
void pc_learn_done(pacoll_team_t *t, pc_learn_call_t *lc);

/* The cost-model inputs for this team. */
void pc_cost_ctx(const pacoll_team_t *t, pc_cost_ctx_t *ctx);

#endif
