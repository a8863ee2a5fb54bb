/*
 * alltoallv "direct": the k-port Direct algorithm with per-pair sizes.
 *
 * Source: multirail-smp-collectives-qsnet §4.2 (Direct), the baseline of
 * sloavx §V.  Each pair decides copy-based or zero-copy from its own block
 * size, which both sides know (MPI requires matching type signatures); the
 * receiver advertises, per sender, exactly where that sender's block goes.
 *
 * Cost (Hockney, k ports, largest block m):
 *     T <= ceil((N-1)/k) * (alpha + m beta)
 */
#include "engine/direct_engine.h"

static size_t scount(const pc_layout_t *x, int p) { return x->a->scounts[p]; }
static size_t sdisp(const pc_layout_t *x, int p) { return x->a->sdispls[p]; }
static size_t rcount(const pc_layout_t *x, int p) { return x->a->rcounts[p]; }
static size_t rdisp(const pc_layout_t *x, int p) { return x->a->rdispls[p]; }

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    size_t span = 0;
    for (int p = 0; p < t->size; p++)
        if (a->rcounts[p] > 0 && a->rdispls[p] + a->rcounts[p] > span)
            span = a->rdispls[p] + a->rcounts[p];
    pc_layout_t x = {a, scount, sdisp, rcount, rdisp, span};
    return pc_direct_exchange(t, "alltoallv direct", &x);
}

const pacoll_algo_t pc_alltoallv_direct = {
    "direct", PACOLL_ALLTOALLV, PACOLL_NEEDS_RMA,
    "multirail-smp-collectives-qsnet §4.2; the baseline of sloavx §V",
    "k-port Direct with per-pair sizes; ceil((N-1)/k)(a+mb), m the largest block", run,
    pc_direct_cost};
