/*
 * Direct's step order (src/engine/direct_order.h, pc_direct_peer): on every
 * layout, each rank's steps 1..size-1 reach every other rank once; at every
 * step the map from senders to receivers is a permutation and the rank I
 * write to hears from me at that same step; PACOLL_DIRECT_ORDER=rank is
 * (rank + i) mod size; the node-spread order (even nodes) sends step i to
 * node (my node + i) mod nodes, and falls back to rank order on uneven
 * nodes or one node.
 */
#include "engine/direct_order.h"
#include "layouts.h"
#include "unit.h"

/* The properties every order must have on layout l. */
static int check_order(const pc_nodes_t *l, int by_rank, const char *what)
{
    int size = l->size, before = unit_failed;
    for (int dir = -1; dir <= 1; dir += 2) {
        for (int r = 0; r < size; r++) {
            int seen[UNIT_MAX_RANKS] = {0};
            for (int i = 1; i < size; i++) {
                int p = pc_direct_order_peer(l, by_rank, r, i, dir);
                if (!CHECK(p >= 0 && p < size && p != r))
                    goto out;
                seen[p]++;
                /* both ends of step i agree */
                CHECK_INT(pc_direct_order_peer(l, by_rank, p, i, -dir), r);
            }
            for (int q = 0; q < size; q++)
                CHECK_INT(seen[q], q != r); /* every peer once, never myself */
        }
    }
    for (int i = 1; i < size; i++) { /* each step: one write into every rank */
        int into[UNIT_MAX_RANKS] = {0};
        for (int r = 0; r < size; r++)
            into[pc_direct_order_peer(l, by_rank, r, i, +1)]++;
        for (int q = 0; q < size; q++)
            CHECK_INT(into[q], 1);
    }
out:
    if (unit_failed != before)
        fprintf(stderr, "    (layout: %s, %d ranks, %d nodes, by_rank %d)\n", what, size,
                l->nnodes, by_rank);
    return unit_failed == before;
}

static int even(const pc_nodes_t *l) { return l->nnodes * l->ppn_max == l->size; }

/* Which order the layout gets, step by step. */
static void check_which(const pc_nodes_t *l, int by_rank, const char *what)
{
    int node_spread = !by_rank && l->nnodes > 1 && even(l), before = unit_failed;
    for (int r = 0; r < l->size; r++)
        for (int i = 1; i < l->size; i++) {
            int p = pc_direct_order_peer(l, by_rank, r, i, +1);
            if (!node_spread) {
                CHECK_INT(p, (r + i) % l->size);
                continue;
            }
            /* consecutive steps to consecutive nodes; the local offset
             * advances once per round of nodes */
            CHECK_INT(l->node_of[p], (l->node_of[r] + i) % l->nnodes);
            CHECK_INT(l->local_of[p], (l->local_of[r] + i / l->nnodes) % l->ppn_max);
        }
    if (unit_failed != before)
        fprintf(stderr, "    (layout: %s)\n", what);
}

static void test_examples(void)
{
    unit_layout_t u;
    unsigned seed = 7;
    int world[8], host[8] = {0};
    static const int p2[] = {2};
    unit_world(world, 4, 0, &seed);
    /* two nodes of two, consecutive: rank 0 writes to 2, 1, 3 */
    unit_layout(&u, 4, world, host, p2, 1);
    static const int want0[] = {2, 1, 3}, want3[] = {1, 2, 0};
    for (int i = 1; i < 4; i++) {
        CHECK_INT(pc_direct_order_peer(&u.l, 0, 0, i, +1), want0[i - 1]);
        CHECK_INT(pc_direct_order_peer(&u.l, 0, 3, i, +1), want3[i - 1]);
        CHECK_INT(pc_direct_order_peer(&u.l, 1, 0, i, +1), i); /* PACOLL_DIRECT_ORDER=rank */
        CHECK_INT(pc_direct_order_peer(&u.l, 1, 0, i, -1), 4 - i);
    }
    /* hosts taken in turn (A,B,A,B): rank 0's node is {0,2}, the other {1,3};
     * step 1 goes to the other node's first rank, 1 */
    int alt[4] = {0, 1, 0, 1};
    unit_layout(&u, 4, world, alt, NULL, 0);
    CHECK_INT(pc_direct_order_peer(&u.l, 0, 0, 1, +1), 1);
    CHECK_INT(pc_direct_order_peer(&u.l, 0, 0, 2, +1), 2);
    CHECK_INT(pc_direct_order_peer(&u.l, 0, 0, 3, +1), 3);
    CHECK_INT(pc_direct_order_peer(&u.l, 0, 2, 1, +1), 3);
    /* uneven (3,1,2 on 6: nodes of 3, 1, 2): rank order */
    static const int p312[] = {3, 1, 2};
    unit_world(world, 6, 0, &seed);
    for (int r = 0; r < 6; r++)
        host[r] = 0;
    unit_layout(&u, 6, world, host, p312, 3);
    for (int i = 1; i < 6; i++)
        CHECK_INT(pc_direct_order_peer(&u.l, 0, 4, i, +1), (4 + i) % 6);
}

static void test_layouts(void)
{
    static const int patterns[][3] = {{0}, {1}, {2}, {3}, {4}, {3, 1, 2}, {2, 4}};
    static const int lens[] = {0, 1, 1, 1, 1, 3, 2};
    unsigned seed = 99;
    int tried = 0, spread = 0;
    for (int size = 1; size <= 36; size++) {
        for (int trial = 0; trial < 8; trial++) {
            int world[UNIT_MAX_RANKS], host[UNIT_MAX_RANKS];
            int pi = (int)(unit_rand(&seed) % 7), hosts = 1 + (int)(unit_rand(&seed) % 3);
            unit_world(world, size, trial % 2, &seed);
            for (int r = 0; r < size; r++)
                host[r] = trial % 4 < 2 ? world[r] * hosts / size : world[r] % hosts;
            unit_layout_t u;
            unit_layout(&u, size, world, host, lens[pi] ? patterns[pi] : NULL, lens[pi]);
            char what[64];
            snprintf(what, sizeof what, "size %d trial %d", size, trial);
            for (int by_rank = 0; by_rank <= 1; by_rank++) {
                if (!check_order(&u.l, by_rank, what))
                    return;
                check_which(&u.l, by_rank, what);
            }
            tried++;
            spread += u.l.nnodes > 1 && even(&u.l);
        }
    }
    /* the node-spread order itself was exercised, on many layouts */
    CHECK(tried == 36 * 8);
    CHECK(spread > 40);
}

int main(void)
{
    test_examples();
    test_layouts();
    return unit_done("unit_direct_order");
}
