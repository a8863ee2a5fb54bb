/*
 * The node layout (src/core/nodes.c, what a team computes in core/team.c):
 * PACOLL_NODE_SIZE's virtual nodes, and node_of / local_of / node_first /
 * node_ranks / ppn_max from each rank's host and virtual node, for even,
 * uneven and non-consecutive placements; then the invariants on many random
 * ones.
 */
#include "layouts.h"
#include "unit.h"

static void test_virtual_node(void)
{
    static const int p312[] = {3, 1, 2}, p2[] = {2}, p1[] = {1}, p41[] = {4, 1};
    static const int want312[] = {0, 0, 0, 1, 2, 2, 3, 3, 3, 4, 5, 5, 6};
    for (int w = 0; w < 13; w++) {
        CHECK_INT(pc_virtual_node(p312, 3, w), want312[w]);
        CHECK_INT(pc_virtual_node(p2, 1, w), w / 2);
        CHECK_INT(pc_virtual_node(p1, 1, w), w);
        CHECK_INT(pc_virtual_node(p41, 2, w), w / 5 * 2 + (w % 5 == 4));
        CHECK_INT(pc_virtual_node(NULL, 0, w), 0); /* no PACOLL_NODE_SIZE */
    }
}

/* A layout against its expected arrays. */
static void expect(const char *what, const unit_layout_t *u, int nnodes, int ppn_max,
                   const int *node_of, const int *local_of, const int *node_first,
                   const int *node_ranks)
{
    const pc_nodes_t *l = &u->l;
    int before = unit_failed;
    CHECK_INT(l->nnodes, nnodes);
    CHECK_INT(l->ppn_max, ppn_max);
    for (int r = 0; r < l->size; r++) {
        CHECK_INT(l->node_of[r], node_of[r]);
        CHECK_INT(l->local_of[r], local_of[r]);
        CHECK_INT(l->node_ranks[r], node_ranks[r]);
    }
    for (int n = 0; n <= nnodes && n == l->nnodes; n++)
        CHECK_INT(l->node_first[n], node_first[n]);
    if (unit_failed != before)
        fprintf(stderr, "    (layout: %s)\n", what);
}

static void test_examples(void)
{
    unit_layout_t u;
    int world[16], host[16];
    unsigned seed = 1;

    /* one host, no pattern: one node in rank order */
    unit_world(world, 16, 0, &seed);
    for (int r = 0; r < 16; r++)
        host[r] = 0;
    unit_layout(&u, 5, world, host, NULL, 0);
    expect("one node of 5", &u, 1, 5, (int[]){0, 0, 0, 0, 0}, (int[]){0, 1, 2, 3, 4},
           (int[]){0, 5}, (int[]){0, 1, 2, 3, 4});

    /* one host, PACOLL_NODE_SIZE=3,1,2 on 7 ranks: 3,1,2,1 */
    static const int p312[] = {3, 1, 2};
    unit_layout(&u, 7, world, host, p312, 3);
    expect("3,1,2 on 7", &u, 4, 3, (int[]){0, 0, 0, 1, 2, 2, 3}, (int[]){0, 1, 2, 0, 0, 1, 0},
           (int[]){0, 3, 4, 6, 7}, (int[]){0, 1, 2, 3, 4, 5, 6});

    /* PACOLL_NODE_SIZE=2 on 7: 2,2,2,1 */
    static const int p2[] = {2};
    unit_layout(&u, 7, world, host, p2, 1);
    expect("2 on 7", &u, 4, 2, (int[]){0, 0, 1, 1, 2, 2, 3}, (int[]){0, 1, 0, 1, 0, 1, 0},
           (int[]){0, 2, 4, 6, 7}, (int[]){0, 1, 2, 3, 4, 5, 6});

    /* two hosts taken in turn (round-robin placement): nodes not consecutive */
    int alt[5] = {0, 1, 0, 1, 0};
    unit_layout(&u, 5, world, alt, NULL, 0);
    expect("hosts A,B,A,B,A", &u, 2, 3, (int[]){0, 1, 0, 1, 0}, (int[]){0, 0, 1, 1, 2},
           (int[]){0, 3, 5}, (int[]){0, 2, 4, 1, 3});

    /* a communicator whose rank 0 is on the second host: node 0 is rank 0's */
    int late[4] = {1, 0, 0, 1};
    unit_layout(&u, 4, world, late, NULL, 0);
    expect("hosts B,A,A,B", &u, 2, 2, (int[]){0, 1, 1, 0}, (int[]){0, 0, 1, 1},
           (int[]){0, 2, 4}, (int[]){0, 3, 1, 2});

    /* virtual nodes inside hosts: 2 hosts of 4 world ranks, pattern 3 cuts
     * world 0-2 | 3 (host 0's rest) | 4-5 | 6-7, the host boundary splitting
     * the second virtual node */
    static const int p3[] = {3};
    unit_world(world, 8, 0, &seed);
    for (int r = 0; r < 8; r++)
        host[r] = r / 4;
    unit_layout(&u, 8, world, host, p3, 1);
    expect("3 over hosts of 4", &u, 4, 3, (int[]){0, 0, 0, 1, 2, 2, 3, 3},
           (int[]){0, 1, 2, 0, 0, 1, 0, 1}, (int[]){0, 3, 4, 6, 8},
           (int[]){0, 1, 2, 3, 4, 5, 6, 7});

    /* a split with a reversed key: rank r is world 5-r, one host, pattern 2:
     * virtual nodes {5,4} {3,2} {1,0} in world ranks = ranks {0,1} {2,3} {4,5} */
    for (int r = 0; r < 6; r++)
        world[r] = 5 - r, host[r] = 0;
    unit_layout(&u, 6, world, host, p2, 1);
    expect("reversed, 2", &u, 3, 2, (int[]){0, 0, 1, 1, 2, 2}, (int[]){0, 1, 0, 1, 0, 1},
           (int[]){0, 2, 4, 6}, (int[]){0, 1, 2, 3, 4, 5});

    /* one rank */
    world[0] = 0, host[0] = 0;
    unit_layout(&u, 1, world, host, p312, 3);
    expect("one rank", &u, 1, 1, (int[]){0}, (int[]){0}, (int[]){0, 1}, (int[]){0});
}

/* What must hold for any keys: checked against a direct reading of them. */
static void test_invariants(void)
{
    static const int patterns[][4] = {{0}, {1}, {2}, {3}, {3, 1, 2}, {4, 1}, {1, 5}};
    static const int lens[] = {0, 1, 1, 1, 3, 2, 2};
    unsigned seed = 12345;
    int layouts = 0;
    for (int size = 1; size <= 40; size += 1 + size / 8) {
        for (int trial = 0; trial < 30; trial++, layouts++) {
            unsigned at = seed;
            int world[UNIT_MAX_RANKS], host[UNIT_MAX_RANKS], keys[2 * UNIT_MAX_RANKS];
            int pi = (int)(unit_rand(&seed) % 7), hosts = 1 + (int)(unit_rand(&seed) % 4);
            unit_world(world, size, trial % 3 != 0, &seed);
            for (int r = 0; r < size; r++) /* by world rank: by slot or round-robin */
                host[r] = trial % 2 ? world[r] % hosts : world[r] * hosts / size;
            unit_layout_t u;
            unit_layout(&u, size, world, host, lens[pi] ? patterns[pi] : NULL, lens[pi]);
            const pc_nodes_t *l = &u.l;
            for (int r = 0; r < size; r++) { /* the keys again, as the layout saw them */
                int lowest = world[r];
                for (int q = 0; q < size; q++)
                    if (host[q] == host[r] && world[q] < lowest)
                        lowest = world[q];
                keys[2 * r] = lowest, keys[2 * r + 1] = pc_virtual_node(patterns[pi], lens[pi], world[r]);
            }
            int before = unit_failed, seen[UNIT_MAX_RANKS] = {0}, ppn = 0;
            CHECK(l->nnodes >= 1 && l->nnodes <= size);
            CHECK_INT(l->node_first[0], 0);
            CHECK_INT(l->node_first[l->nnodes], size);
            for (int n = 0; n < l->nnodes; n++) {
                int cnt = l->node_first[n + 1] - l->node_first[n];
                CHECK(cnt >= 1);
                ppn = cnt > ppn ? cnt : ppn;
                /* nodes numbered by their first rank; locals in rank order */
                if (n > 0)
                    CHECK(l->node_ranks[l->node_first[n]] > l->node_ranks[l->node_first[n - 1]]);
                for (int k = l->node_first[n] + 1; k < l->node_first[n + 1]; k++)
                    CHECK(l->node_ranks[k] > l->node_ranks[k - 1]);
            }
            CHECK_INT(l->ppn_max, ppn);
            for (int r = 0; r < size; r++) {
                int n = l->node_of[r], k = l->node_first[n] + l->local_of[r];
                CHECK(n >= 0 && n < l->nnodes);
                CHECK(k < l->node_first[n + 1]);
                CHECK_INT(l->node_ranks[k], r);
                seen[l->node_ranks[r]]++;
                /* same node exactly when same (host, virtual node) */
                for (int q = 0; q < size; q++)
                    CHECK((l->node_of[q] == n) ==
                          (keys[2 * q] == keys[2 * r] && keys[2 * q + 1] == keys[2 * r + 1]));
            }
            for (int r = 0; r < size; r++)
                CHECK_INT(seen[r], 1); /* node_ranks is a permutation */
            if (unit_failed != before) {
                fprintf(stderr, "    (size %d, trial %d, generator state %u)\n", size, trial, at);
                return;
            }
        }
    }
    CHECK(layouts == 540);
}

int main(void)
{
    test_virtual_node();
    test_examples();
    test_invariants();
    return unit_done("unit_nodes");
}
