/*
 * The k-port Direct exchange (multirail §4.2, pap-aware §4.2's base
 * algorithm): at step i a rank writes its block for rank (p + i) mod N
 * straight into that rank's memory, at most PACOLL_PORTS writes in flight,
 * and finishes when every incoming block has landed.  alltoall, allgather,
 * alltoallv and gather are all this exchange with a different layout of
 * blocks, so the four `direct` algorithms share it.
 *
 * Small blocks go copy-based through the receiver's eager slots (no wait for
 * the receiver); larger ones zero-copy into the receive buffer the receiver
 * advertised.  Both sides decide per pair from the block size, so they agree.
 */
#ifndef PACOLL_EXCHANGE_H
#define PACOLL_EXCHANGE_H

#include "core/rma.h"
#include "core/team.h"

typedef struct pc_layout pc_layout_t;
struct pc_layout {
    const pc_args_t *a;
    /* bytes and offsets of the block for / from each peer */
    size_t (*send_count)(const pc_layout_t *x, int peer);
    size_t (*send_disp)(const pc_layout_t *x, int peer);
    size_t (*recv_count)(const pc_layout_t *x, int peer);
    size_t (*recv_disp)(const pc_layout_t *x, int peer);
    size_t recv_span; /* bytes of rbuf the receives may touch */
};

int pc_direct_exchange(pacoll_team_t *t, const char *what, const pc_layout_t *x);

/* Hockney cost of the k-port Direct exchange of m-byte blocks among p
 * ranks: ceil((p-1)/k) steps of (alpha + m beta) (multirail eq. 2). */
double pc_direct_cost(const pc_cost_ctx_t *ctx, size_t m);

#endif
